// Package kvpipe is a real recompute-or-load pipeline on this machine, to
// test the roofline model of package recompute against hardware rather
// than against itself.
//
// A context of N tokens is prepared layer by layer. For the recomputed
// share r·N the pipeline does real attention work: each recomputed token,
// at a position spread evenly over the context, scores its query against
// the keys of every earlier token, takes a softmax and sums the values —
// cost proportional to r·N·N·d, the shape of recomputing KV with attention
// over the context. For the loaded share (1−r)·N it reads that many
// tokens' worth of real KV bytes (2 × KV heads × head dim × bytes per
// value per token, the model's size) of the layer from a file on disk. The
// file is read as the recompute paper's offload writes it: only the
// loaded tokens, layer after layer, so the reads of successive layers are
// contiguous (a layout with gaps defeats the kernel's readahead and makes
// the load cost non-linear in the bytes read, which this machine showed).
// The loader runs in its own goroutine one layer ahead of the compute
// (double buffering): loading layer ℓ+1 overlaps computing layer ℓ, and
// layer ℓ's compute waits for layer ℓ's load, as in the recompute paper's
// multi-stream pipeline. TTFT is the wall time of all layers.
//
// What the compute stands for, and what it does not: it is the attention
// part of recomputation, single-head, float32, on one CPU core, with a
// small head dimension (HeadDim) chosen so that a run takes milliseconds.
// It is not a GPU, not the QKV and MLP projections (which add a per-token
// cost and change nothing in the model's shape), and it does not read the
// loaded bytes (the keys it attends to are resident in memory). Its
// absolute speed says nothing about an accelerator; what the measurement
// tests is the roofline's structure — two overlapped branches, linear in
// r, crossing at r0 = t_i/(t_c + t_i) — against a real overlapped
// pipeline with real I/O, bubbles, scheduling and interference.
//
// Tiers: PageCache reads a file the kernel has cached (memory bandwidth);
// Disk first drops the file from the page cache with
// posix_fadvise(POSIX_FADV_DONTNEED) (Linux only) so the read goes to the
// device. A virtual disk may still be cached by the host; the measured
// load profile shows the bandwidth actually seen.
package kvpipe

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/tailbound/tailbound/models/namelist"
)

// Tier is the cache state the KV file is read in.
type Tier int

const (
	// PageCache reads the file from the kernel's page cache.
	PageCache Tier = iota
	// Disk reads the file after dropping it from the page cache.
	Disk
)

// String returns "page-cache" or "disk".
func (t Tier) String() string {
	if t == Disk {
		return "disk"
	}
	return "page-cache"
}

// ParseTier reads "page-cache" or "disk".
func ParseTier(s string) (Tier, error) {
	switch s {
	case "page-cache":
		return PageCache, nil
	case "disk":
		return Disk, nil
	}
	return 0, fmt.Errorf("unknown measured tier %q (want page-cache|disk)", s)
}

// ParseTiers reads a comma-separated list of tiers (spaces around a name
// are ignored); the disk tier is refused where DiskSupported is false.
func ParseTiers(list string) ([]Tier, error) {
	return namelist.ParseEach(list, func(name string) (Tier, error) {
		t, err := ParseTier(name)
		if err == nil && t == Disk && !DiskSupported {
			return t, errors.New("the disk tier needs Linux (posix_fadvise)")
		}
		return t, err
	})
}

// Config sizes a pipeline.
type Config struct {
	// Layers is the number of layers run (the file holds each layer's KV).
	Layers int
	// MaxTokens is the longest context the file holds, tokens.
	MaxTokens int
	// BytesPerTokenLayer is the KV size of one token in one layer, bytes
	// (kvsize.Config.BytesPerTokenLayer of the model emulated).
	BytesPerTokenLayer int
	// HeadDim is the dimension of the emulated attention, values; it sets
	// the compute cost per key.
	HeadDim int
	// Dir holds the temporary KV file; "" is the system temporary
	// directory.
	Dir string
	// Seed fills the file and the attention operands (math/rand/v2 PCG).
	Seed uint64
}

// FileBytes is the size of the KV file, bytes.
func (c Config) FileBytes() int64 {
	return int64(c.Layers) * int64(c.MaxTokens) * int64(c.BytesPerTokenLayer)
}

// Validate reports sizes the pipeline cannot run, including a file above
// 8 GiB (a guard against a mistyped flag filling the disk).
func (c Config) Validate() error {
	if c.Layers < 1 || c.MaxTokens < 1 || c.BytesPerTokenLayer < 1 || c.HeadDim < 1 {
		return fmt.Errorf("kvpipe: layers (%d), tokens (%d), bytes per token per layer (%d) and head dim (%d) must be ≥ 1",
			c.Layers, c.MaxTokens, c.BytesPerTokenLayer, c.HeadDim)
	}
	if c.FileBytes() > 8<<30 {
		return fmt.Errorf("kvpipe: KV file of %d MiB exceeds the 8 GiB limit", c.FileBytes()>>20)
	}
	return nil
}

// Pipeline owns a temporary KV file and the attention operands.
type Pipeline struct {
	cfg  Config
	dir  string
	f    *os.File
	q    []float32 // MaxTokens × HeadDim queries
	k, v []float32 // MaxTokens × HeadDim keys and values
	bufs [2][]byte // double buffer of one layer's loaded share
	sink float32   // keeps the attention output live
}

// Open creates the KV file (in a new temporary directory under cfg.Dir),
// fills it with seeded random bytes, syncs it to the device, and prepares
// the attention operands. Close removes the directory.
func Open(cfg Config) (*Pipeline, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(cfg.Dir, "tailbound-kv-")
	if err != nil {
		return nil, fmt.Errorf("kvpipe: %w", err)
	}
	p := &Pipeline{cfg: cfg, dir: dir}
	if err := p.create(); err != nil {
		return nil, errors.Join(err, p.Close())
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6b76))
	n := cfg.MaxTokens * cfg.HeadDim
	p.q, p.k, p.v = make([]float32, n), make([]float32, n), make([]float32, n)
	scale := float32(1 / math.Sqrt(float64(cfg.HeadDim)))
	for i := range n {
		p.q[i] = float32(rng.NormFloat64()) * scale
		p.k[i] = float32(rng.NormFloat64())
		p.v[i] = float32(rng.NormFloat64())
	}
	for i := range p.bufs {
		p.bufs[i] = make([]byte, cfg.MaxTokens*cfg.BytesPerTokenLayer)
	}
	return p, nil
}

func (p *Pipeline) create() error {
	f, err := os.Create(filepath.Join(p.dir, "kv.bin"))
	if err != nil {
		return fmt.Errorf("kvpipe: %w", err)
	}
	p.f = f
	rng := rand.New(rand.NewPCG(p.cfg.Seed, 0x66696c65))
	block := make([]byte, 1<<20)
	for left := p.cfg.FileBytes(); left > 0; {
		m := min(left, int64(len(block)))
		for i := int64(0); i < m; i += 8 {
			x := rng.Uint64()
			for j := int64(0); j < 8 && i+j < m; j++ {
				block[i+j] = byte(x >> (8 * j))
			}
		}
		if _, err := f.Write(block[:m]); err != nil {
			return fmt.Errorf("kvpipe: writing the KV file: %w", err)
		}
		left -= m
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("kvpipe: syncing the KV file: %w", err)
	}
	return nil
}

// Close closes and deletes the KV file and its directory.
func (p *Pipeline) Close() error {
	var err error
	if p.f != nil {
		err = p.f.Close()
	}
	return errors.Join(err, os.RemoveAll(p.dir))
}

// Config returns the pipeline's configuration.
func (p *Pipeline) Config() Config { return p.cfg }

// prepare puts the file in the tier's cache state (untimed).
func (p *Pipeline) prepare(t Tier) error {
	switch t {
	case Disk:
		return dropCache(p.f)
	default: // read the whole file once so that it is resident
		buf := p.bufs[0]
		for off := int64(0); off < p.cfg.FileBytes(); off += int64(len(buf)) {
			n := min(int64(len(buf)), p.cfg.FileBytes()-off)
			if _, err := p.f.ReadAt(buf[:n], off); err != nil && err != io.EOF {
				return fmt.Errorf("kvpipe: warming the page cache: %w", err)
			}
		}
		return nil
	}
}

// checkTokens validates a context length and a recompute ratio and returns
// the number of recomputed tokens, round(r·N).
func (p *Pipeline) checkTokens(tokens int, r float64) (int, error) {
	if tokens < 1 || tokens > p.cfg.MaxTokens {
		return 0, fmt.Errorf("kvpipe: context of %d tokens outside [1, %d]", tokens, p.cfg.MaxTokens)
	}
	if !(r >= 0 && r <= 1) {
		return 0, fmt.Errorf("kvpipe: recompute ratio %v outside [0, 1]", r)
	}
	return int(math.Round(r * float64(tokens))), nil
}

// Run prepares the tier's cache state, then times the full pipeline for a
// context of tokens tokens at recompute ratio r: returns the wall time of
// all layers.
func (p *Pipeline) Run(t Tier, tokens int, r float64) (time.Duration, error) {
	rec, err := p.checkTokens(tokens, r)
	if err != nil {
		return 0, err
	}
	if err := p.prepare(t); err != nil {
		return 0, err
	}
	return p.pipeline(tokens, rec, tokens-rec, true, true)
}

// ComputeOnly times the compute stage alone: recomputed tokens of a
// context of tokens tokens, in every layer, no loads.
func (p *Pipeline) ComputeOnly(tokens, recomputed int) (time.Duration, error) {
	if _, err := p.checkTokens(tokens, 0); err != nil {
		return 0, err
	}
	if recomputed < 0 || recomputed > tokens {
		return 0, fmt.Errorf("kvpipe: %d recomputed tokens outside [0, %d]", recomputed, tokens)
	}
	return p.pipeline(tokens, recomputed, 0, true, false)
}

// LoadOnly prepares the tier's cache state and times the load stage alone:
// loaded tokens' KV in every layer, no compute.
func (p *Pipeline) LoadOnly(t Tier, tokens, loaded int) (time.Duration, error) {
	if _, err := p.checkTokens(tokens, 0); err != nil {
		return 0, err
	}
	if loaded < 0 || loaded > tokens {
		return 0, fmt.Errorf("kvpipe: %d loaded tokens outside [0, %d]", loaded, tokens)
	}
	if err := p.prepare(t); err != nil {
		return 0, err
	}
	return p.pipeline(tokens, 0, loaded, false, true)
}

// pipeline runs the layers: a loader goroutine reads each layer's loaded
// share into one of two buffers; the caller's goroutine computes each
// layer once its load is done, then frees the buffer.
func (p *Pipeline) pipeline(tokens, recomputed, loaded int, compute, load bool) (time.Duration, error) {
	L := p.cfg.Layers
	nbytes := loaded * p.cfg.BytesPerTokenLayer
	stride := int64(nbytes) // packed: only the loaded tokens, layer after layer
	free := make(chan []byte, 2)
	ready := make(chan []byte, 2)
	errc := make(chan error, 1)
	free <- p.bufs[0]
	free <- p.bufs[1]
	start := time.Now()
	go func() {
		defer close(ready)
		for l := range L {
			buf := <-free
			if load && nbytes > 0 {
				if _, err := p.f.ReadAt(buf[:nbytes], int64(l)*stride); err != nil {
					errc <- fmt.Errorf("kvpipe: reading layer %d: %w", l, err)
					return
				}
			}
			ready <- buf
		}
	}()
	for range L {
		buf, ok := <-ready
		if !ok {
			return 0, <-errc
		}
		if compute {
			p.attend(tokens, recomputed)
		}
		free <- buf
	}
	return time.Since(start), nil
}

// attend recomputes count tokens spread evenly over a context of tokens
// tokens: for the token at position q, scores against keys 0..q, a
// softmax, and the weighted sum of values (causal attention, one head).
func (p *Pipeline) attend(tokens, count int) {
	d := p.cfg.HeadDim
	scores := make([]float32, tokens)
	out := make([]float32, d)
	for i := range count {
		pos := position(i, count, tokens)
		q := p.q[pos*d : pos*d+d]
		mx := float32(math.Inf(-1))
		for j := 0; j <= pos; j++ {
			k := p.k[j*d : j*d+d]
			var s float32
			for c := range q {
				s += q[c] * k[c]
			}
			scores[j] = s
			mx = max(mx, s)
		}
		var sum float32
		for j := 0; j <= pos; j++ {
			e := float32(math.Exp(float64(scores[j] - mx)))
			scores[j] = e
			sum += e
		}
		clear(out)
		for j := 0; j <= pos; j++ {
			w, v := scores[j]/sum, p.v[j*d:j*d+d]
			for c := range out {
				out[c] += w * v[c]
			}
		}
		p.sink += out[0]
	}
}

// position is where the i-th of count recomputed tokens sits in a context
// of tokens tokens: the middle of the i-th of count equal slices.
func position(i, count, tokens int) int {
	return int((float64(i) + 0.5) * float64(tokens) / float64(count))
}

// KeyVisits is the number of (query, key) pairs attend scores when it
// recomputes count of tokens tokens: Σ (position + 1). It is ≈
// count·(tokens+1)/2, linear in count, which is the roofline's assumption
// of a constant cost t_c per recomputed token at a given context length.
func KeyVisits(tokens, count int) int64 {
	var s int64
	for i := range count {
		s += int64(position(i, count, tokens)) + 1
	}
	return s
}
