package main

// Executed documentation: every command shown in README.md and docs/ runs
// here against the output shown beside it.
//
// The convention (README.md, "Docs that run"):
//
//   - A fenced block tagged `console` is executed. A line starting with "$ "
//     is a command (a line ending in "\" continues on the next line); the
//     lines after it, up to the next command or the end of the block, are its
//     exact expected stdout. "go run ./cmd/tailbound" in a command means the
//     freshly built tailbound. Commands run with `sh -e`, in order, in one
//     scratch directory per block that stands for the repository root (it
//     links each top-level entry of the repository) and sees the shared
//     data at ../shared (and $SHARED) when found; files written at its top
//     level stay there.
//   - Before comparing, JSON fields whose name ends in "_seconds" and version
//     strings are masked; trailing blanks and trailing empty lines are
//     ignored; an expected line consisting of "..." matches any run of lines
//     (none included).
//   - A region between "<!-- output: COMMAND -->" and "<!-- end output -->"
//     is the exact stdout of COMMAND (typically --format markdown), rendered
//     as markdown; it is checked the same way. "<!-- slow output: COMMAND -->"
//     marks such a region whose command takes minutes: it runs only with
//     TAILBOUND_DOCS_SLOW=1 and is otherwise counted as not executed.
//   - A block tagged sh, bash or shell is not executed and must be preceded
//     by a line "<!-- not executed: REASON -->". Any other fenced block that
//     shows a command line (one starting "$ ", "tailbound SUBCOMMAND ",
//     "go run", "go test", "go build" or "scripts/") is an error: every
//     command shown is either executed or says why it is not. The command
//     reference under docs/reference/, generated from the flag definitions
//     and checked by its own staleness test, shows synopses and is exempt
//     from this rule (its console blocks, if any, still run).
//
// `go test ./cmd/tailbound -run TestDocs -update` rewrites, in place, the
// expected output of every command whose output no longer matches.

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/tailbound/tailbound/internal/shareddata"
	"github.com/tailbound/tailbound/lp/solvers"
)

var updateDocs = flag.Bool("update", false, "rewrite what is stale: TestDocs the expected outputs in README.md and docs/, TestReference the pages of docs/reference")

// docCommand is one command of an executed block: its shell text and the
// stdout the document shows for it.
type docCommand struct {
	line int      // 1-based line of the "$ " line (or the output marker)
	text []string // the command's lines as shown, "$ " and continuations
	sh   string   // the shell command
	want []string // expected stdout lines
}

// docBlock is one fenced block (or output region) of a document.
type docBlock struct {
	file       string // path relative to the repository root
	line       int    // 1-based line of the opening fence or marker
	lang       string // info string of the fence; "output" for a region
	start, end int    // 0-based line indices of the body: lines[start:end]
	reason     string // the "not executed" reason preceding it, if any
	cmds       []docCommand
}

var (
	notExecutedRE = regexp.MustCompile(`^<!-- not executed: (.+\S) -->$`)
	outputOpenRE  = regexp.MustCompile(`^<!-- (slow )?output: (.+\S) -->$`)
	outputCloseRE = regexp.MustCompile(`^<!-- end output -->$`)
	commandLikeRE = regexp.MustCompile(`^\s*(\$ |tailbound [a-z][a-z-]*( |$)|go (run|test|build) |scripts/)`)
	secondsRE     = regexp.MustCompile(`("[A-Za-z0-9_]*_seconds"\s*:\s*)(-?[0-9][0-9.eE+-]*|null)`)
	versionKeyRE  = regexp.MustCompile(`("version"\s*:\s*)"[^"]*"`)
	versionRE     = regexp.MustCompile(`\b(devel|v[0-9]+\.[0-9]+\.[0-9]+\S*)( [0-9a-f]{7,40}(\+modified)?)? go[0-9]+\.[0-9]+(\.[0-9]+)?\S*`)
)

// repoRoot is the repository root, seen from this package's directory.
const repoRoot = "../.."

// docFiles lists README.md and every markdown file under docs/, relative to
// the repository root, sorted.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(repoRoot, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files[1:])
	return files
}

// parseDoc splits a document into its fenced blocks and output regions.
func parseDoc(file string, lines []string) ([]docBlock, error) {
	var blocks []docBlock
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := outputOpenRE.FindStringSubmatch(l); m != nil {
			j := i + 1
			for j < len(lines) && !outputCloseRE.MatchString(lines[j]) {
				j++
			}
			if j == len(lines) {
				return nil, fmt.Errorf("%s:%d: output region without <!-- end output -->", file, i+1)
			}
			want := trimBlank(lines[i+1 : j])
			lang := "output"
			if m[1] != "" {
				lang = "slow output"
			}
			blocks = append(blocks, docBlock{file: file, line: i + 1, lang: lang, start: i + 1, end: j,
				cmds: []docCommand{{line: i + 1, sh: m[2], text: []string{m[2]}, want: want}}})
			i = j
			continue
		}
		trimmed := strings.TrimLeft(l, " ")
		if !strings.HasPrefix(trimmed, "```") {
			continue
		}
		indent := len(l) - len(trimmed)
		lang := ""
		if f := strings.Fields(strings.TrimLeft(trimmed, "`")); len(f) > 0 {
			lang = f[0]
		}
		b := docBlock{file: file, line: i + 1, lang: lang, start: i + 1}
		for k := i - 1; k >= 0; k-- {
			if strings.TrimSpace(lines[k]) == "" {
				continue
			}
			if m := notExecutedRE.FindStringSubmatch(strings.TrimSpace(lines[k])); m != nil {
				b.reason = m[1]
			}
			break
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != "```" {
			j++
		}
		if j == len(lines) {
			return nil, fmt.Errorf("%s:%d: unclosed fenced block", file, i+1)
		}
		b.end = j
		if b.lang == "console" {
			body := make([]string, 0, j-i-1)
			for _, bl := range lines[i+1 : j] {
				body = append(body, strings.TrimPrefix(bl, strings.Repeat(" ", indent)))
			}
			cmds, err := parseConsole(body, i+2)
			if err != nil {
				return nil, fmt.Errorf("%s:%w", file, err)
			}
			b.cmds = cmds
		}
		blocks = append(blocks, b)
		i = j
	}
	return blocks, nil
}

// parseConsole reads the commands and expected outputs of a console block
// whose first body line is line first of its file.
func parseConsole(body []string, first int) ([]docCommand, error) {
	var cmds []docCommand
	for i := 0; i < len(body); i++ {
		if !strings.HasPrefix(body[i], "$ ") {
			if len(cmds) == 0 {
				if strings.TrimSpace(body[i]) == "" {
					continue
				}
				return nil, fmt.Errorf("%d: console block: output before the first \"$ \" command", first+i)
			}
			c := &cmds[len(cmds)-1]
			c.want = append(c.want, body[i])
			continue
		}
		c := docCommand{line: first + i}
		var sh []string
		for {
			c.text = append(c.text, body[i])
			s := strings.TrimPrefix(body[i], "$ ")
			if len(sh) > 0 {
				s = body[i]
			}
			sh = append(sh, s)
			if !strings.HasSuffix(body[i], "\\") || i+1 == len(body) {
				break
			}
			i++
		}
		c.sh = strings.Join(sh, "\n")
		cmds = append(cmds, c)
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("%d: console block without a \"$ \" command", first)
	}
	for k := range cmds {
		cmds[k].want = trimBlank(cmds[k].want)
	}
	return cmds, nil
}

// trimBlank drops trailing blanks of each line and trailing empty lines.
func trimBlank(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " \t")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// toTailbound rewrites "go run ./cmd/tailbound" to the built tailbound.
func toTailbound(sh string) string {
	sh = strings.ReplaceAll(sh, "go run -tags coin ./cmd/tailbound", "tailbound")
	return strings.ReplaceAll(sh, "go run ./cmd/tailbound", "tailbound")
}

// mask hides what legitimately differs between runs: wall times in JSON
// fields named *_seconds and version strings.
func mask(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		l = secondsRE.ReplaceAllString(l, `${1}*`)
		l = versionKeyRE.ReplaceAllString(l, `${1}"*"`)
		out[i] = versionRE.ReplaceAllString(l, "VERSION")
	}
	return out
}

// matchLines reports whether got matches want, where a want line "..."
// matches any run of got lines.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matchLines(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && want[0] == got[0] && matchLines(want[1:], got[1:])
}

// TestDocMatch checks the masking and the "..." wildcard on hand-made cases.
func TestDocMatch(t *testing.T) {
	tests := []struct {
		name      string
		want, got []string
		ok        bool
	}{
		{"equal", []string{"a", "b"}, []string{"a", "b"}, true},
		{"differ", []string{"a", "b"}, []string{"a", "c"}, false},
		{"extra line", []string{"a"}, []string{"a", "b"}, false},
		{"ellipsis middle", []string{"a", "...", "d"}, []string{"a", "b", "c", "d"}, true},
		{"ellipsis empty run", []string{"a", "...", "b"}, []string{"a", "b"}, true},
		{"ellipsis end", []string{"a", "..."}, []string{"a", "x", "y"}, true},
		{"ellipsis no anchor", []string{"...", "z"}, []string{"a", "b"}, false},
		{"seconds masked", []string{`  "solve_seconds": 1.5,`}, []string{`  "solve_seconds": 0.0021,`}, true},
		{"other numbers kept", []string{`  "tel_tokens": 1.5,`}, []string{`  "tel_tokens": 2,`}, false},
		{"version field", []string{`"version": "devel go1.26.8",`}, []string{`"version": "v1.2.3 0123abcd+modified go1.27.0",`}, true},
		{"version line", []string{"tailbound devel go1.26.8"}, []string{"tailbound devel 0d39d24aa11f2e3d go1.26.8"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := matchLines(mask(tc.want), mask(tc.got)); got != tc.ok {
				t.Errorf("matchLines(%q, %q) = %v, want %v", tc.want, tc.got, got, tc.ok)
			}
		})
	}
}

// TestDocParse checks the block classification on a hand-written document.
func TestDocParse(t *testing.T) {
	doc := strings.Split(strings.Join([]string{
		"# t",
		"```console",
		"$ tailbound simulate \\",
		"    --capacity 100",
		"a",
		"",
		"b   ",
		"",
		"$ echo x",
		"x",
		"```",
		"<!-- not executed: takes an hour -->",
		"",
		"```sh",
		"tailbound tables optimality-gap",
		"```",
		"```json",
		`{"t": 1}`,
		"```",
		"<!-- output: tailbound tables recompute --format markdown -->",
		"| a |",
		"<!-- end output -->",
		"<!-- slow output: tailbound tables optimality-gap --format markdown -->",
		"| b |",
		"<!-- end output -->",
	}, "\n"), "\n")
	blocks, err := parseDoc("x.md", doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 5 {
		t.Fatalf("%d blocks, want 5", len(blocks))
	}
	c := blocks[0].cmds
	if len(c) != 2 || c[0].sh != "tailbound simulate \\\n    --capacity 100" || strings.Join(c[0].want, "|") != "a||b" ||
		c[0].line != 3 || c[1].sh != "echo x" || strings.Join(c[1].want, "|") != "x" {
		t.Errorf("console block parsed as %+v", c)
	}
	if blocks[1].lang != "sh" || blocks[1].reason != "takes an hour" {
		t.Errorf("sh block: %+v", blocks[1])
	}
	if blocks[2].lang != "json" || blocks[2].reason != "" {
		t.Errorf("json block: %+v", blocks[2])
	}
	if blocks[3].lang != "output" || blocks[3].cmds[0].sh != "tailbound tables recompute --format markdown" ||
		strings.Join(blocks[3].cmds[0].want, "|") != "| a |" {
		t.Errorf("output region: %+v", blocks[3])
	}
	if blocks[4].lang != "slow output" || blocks[4].cmds[0].sh != "tailbound tables optimality-gap --format markdown" {
		t.Errorf("slow output region: %+v", blocks[4])
	}
	if _, err := parseDoc("y.md", []string{"```console", "output first", "```"}); err == nil {
		t.Error("a console block with output before its command was accepted")
	}
}

// docResult is what one executed command printed (unmasked, as -update
// writes it back) and whether it matched the document.
type docResult struct {
	got []string
	ok  bool
}

// TestDocs runs every command shown in README.md and docs/ (see the file
// comment) and fails on a mismatch, and on a command block that is neither
// executed nor marked with its reason.
func TestDocs(t *testing.T) {
	if e, ok := solvers.Find("clp"); ok && e.Available() {
		t.Skip("the docs show the pure-Go build's output (solver names, LP bounds); run TestDocs without -tags coin")
	}
	files := docFiles(t)
	contents := map[string][]string{}
	var all []docBlock
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		contents[f] = lines
		blocks, err := parseDoc(f, lines)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, blocks...)
	}

	slow := os.Getenv("TAILBOUND_DOCS_SLOW") == "1"
	var executed, notExecuted int
	var scripts []docBlock
	for _, b := range all {
		switch {
		case b.lang == "console" || b.lang == "output" || b.lang == "slow output" && slow:
			executed += len(b.cmds)
			scripts = append(scripts, b)
		case b.lang == "slow output":
			notExecuted++
		case strings.HasPrefix(b.file, "docs/reference/"):
			// Generated from the flag definitions, with a staleness test of
			// its own: its usage lines are synopses, not commands to run.
		case b.lang == "sh" || b.lang == "bash" || b.lang == "shell":
			if b.reason == "" {
				t.Errorf("%s:%d: a %s block that is not executed must be preceded by <!-- not executed: REASON --> (or be a console block)", b.file, b.line, b.lang)
			}
			notExecuted++
		default:
			for k, l := range contents[b.file][b.start:b.end] {
				if commandLikeRE.MatchString(l) {
					t.Errorf("%s:%d: a command in a %q block: make it a console block, or an sh block marked <!-- not executed: REASON -->", b.file, b.start+k+1, b.lang)
					break
				}
			}
		}
	}
	t.Logf("doc commands executed: %d (in %d blocks and regions); command blocks not executed: %d", executed, len(scripts), notExecuted)
	for _, b := range scripts {
		for _, c := range b.cmds {
			t.Logf("executed %s:%d: %s", b.file, c.line, strings.ReplaceAll(c.sh, "\\\n", ""))
		}
	}
	for _, b := range all {
		switch {
		case b.lang == "slow output" && !slow:
			t.Logf("not executed %s:%d: slow output region of %s (runs with TAILBOUND_DOCS_SLOW=1)", b.file, b.line, b.cmds[0].sh)
		case b.lang == "sh" || b.lang == "bash" || b.lang == "shell":
			t.Logf("not executed %s:%d: %s", b.file, b.line, b.reason)
		}
	}

	shared := shareddata.Dir()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var top []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			top = append(top, e.Name())
		}
	}
	dir := t.TempDir()
	byName := map[string]docBlock{}
	var scriptFiles []string
	for _, b := range scripts {
		name := fmt.Sprintf("%s:%d", strings.ReplaceAll(b.file, "/", "_"), b.line)
		var ar txtar.Archive
		var script strings.Builder
		needsShared, needsPython := false, false
		for k, c := range b.cmds {
			sh := toTailbound(c.sh)
			if strings.Contains(sh, "../shared") || strings.Contains(sh, "$SHARED") || readsMooncake(sh) {
				needsShared = true
			}
			if strings.Contains(sh, "python3") {
				needsPython = true
			}
			fmt.Fprintf(&script, "exec sh -e cmd%d.sh\ndocmatch %d\n", k, k)
			ar.Files = append(ar.Files, txtar.File{Name: fmt.Sprintf("cmd%d.sh", k), Data: []byte(sh + "\n")})
		}
		head := ""
		if needsShared {
			head = "[!shared] skip 'shared/data not found above the repository'\n"
		}
		if needsPython {
			head += "[!exec:python3] skip 'python3 not found'\n"
		}
		ar.Comment = []byte(fmt.Sprintf("# %s:%d\n%s%s", b.file, b.line, head, script.String()))
		p := filepath.Join(dir, name+".txtar")
		if err := os.WriteFile(p, txtar.Format(&ar), 0o644); err != nil {
			t.Fatal(err)
		}
		byName[name] = b
		scriptFiles = append(scriptFiles, p)
	}

	if len(scriptFiles) == 0 {
		return
	}
	var mu sync.Mutex
	results := map[string]map[int]docResult{}
	t.Run("run", func(t *testing.T) {
		testscript.Run(t, testscript.Params{
			Files: scriptFiles,
			Setup: func(env *testscript.Env) error {
				// The scratch directory stands for the repository root: a
				// link to each of its top-level entries, so that commands
				// read examples/, testdata and scripts where the docs say,
				// while the files they write stay in the scratch directory.
				for _, e := range top {
					if err := os.Symlink(filepath.Join(root, e), filepath.Join(env.WorkDir, e)); err != nil {
						return err
					}
				}
				if shared != "" {
					link := filepath.Join(filepath.Dir(env.WorkDir), "shared")
					if err := os.Symlink(filepath.Dir(shared), link); err != nil && !os.IsExist(err) {
						return err
					}
					env.Setenv("SHARED", filepath.Dir(shared))
				}
				return nil
			},
			Condition: func(cond string) (bool, error) {
				if cond == "shared" {
					return shared != "", nil
				}
				return false, fmt.Errorf("unknown condition %q", cond)
			},
			Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
				"docmatch": func(ts *testscript.TestScript, neg bool, args []string) {
					var k int
					if len(args) != 1 {
						ts.Fatalf("usage: docmatch INDEX")
					}
					if _, err := fmt.Sscan(args[0], &k); err != nil {
						ts.Fatalf("docmatch: %v", err)
					}
					b := byName[ts.Name()]
					c := b.cmds[k]
					got := trimBlank(strings.Split(strings.TrimSuffix(ts.ReadFile("stdout"), "\n"), "\n"))
					ok := matchLines(mask(c.want), mask(got))
					mu.Lock()
					if results[ts.Name()] == nil {
						results[ts.Name()] = map[int]docResult{}
					}
					results[ts.Name()][k] = docResult{got: got, ok: ok}
					mu.Unlock()
					if !ok && !*updateDocs {
						ts.Fatalf("%s:%d: output of\n%s\ndiffers from the document (go test ./cmd/tailbound -run TestDocs -update rewrites it):\n%s",
							b.file, c.line, strings.Join(c.text, "\n"), diffLines(mask(c.want), mask(got)))
					}
				},
			},
		})
	})
	if *updateDocs {
		rewriteDocs(t, contents, byName, results)
	}
}

// diffLines shows want and got side by side from their first difference.
func diffLines(want, got []string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at output line %d\n", i+1)
	for k := i; k < i+8 && (k < len(want) || k < len(got)); k++ {
		w, g := "<none>", "<none>"
		if k < len(want) {
			w = want[k]
		}
		if k < len(got) {
			g = got[k]
		}
		fmt.Fprintf(&b, "  doc: %s\n  got: %s\n", w, g)
	}
	return b.String()
}

// rewriteDocs writes the outputs of the commands that did not match back
// into their documents.
func rewriteDocs(t *testing.T, contents map[string][]string, byName map[string]docBlock, results map[string]map[int]docResult) {
	t.Helper()
	type edit struct {
		start, end int
		body       []string
	}
	edits := map[string][]edit{}
	for name, b := range byName {
		res := results[name]
		changed := false
		for k := range b.cmds {
			if r, ok := res[k]; ok && !r.ok {
				changed = true
			}
		}
		if !changed {
			continue
		}
		var body []string
		hadOutput := false
		if b.lang == "output" || b.lang == "slow output" {
			body = res[0].got
		} else {
			for k, c := range b.cmds {
				if k > 0 && len(body) > 0 && body[len(body)-1] != "" && hadOutput {
					body = append(body, "")
				}
				body = append(body, c.text...)
				out := c.want
				if r, ok := res[k]; ok && !r.ok {
					out = r.got
				}
				body = append(body, out...)
				hadOutput = len(out) > 0
			}
		}
		edits[b.file] = append(edits[b.file], edit{b.start, b.end, body})
	}
	for file, es := range edits {
		sort.Slice(es, func(i, j int) bool { return es[i].start > es[j].start })
		lines := contents[file]
		for _, e := range es {
			lines = append(lines[:e.start:e.start], append(append([]string(nil), e.body...), lines[e.end:]...)...)
		}
		if err := os.WriteFile(filepath.Join(repoRoot, file), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("updated %s (%d blocks)", file, len(es))
	}
}

// pendingDocs are pages that other pieces of work add (the issue each comes
// from in parentheses); a link to one of them passes while it is absent.
// Remove an entry once its page is merged.
var pendingDocs = map[string]string{}

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocLinks checks that every relative link in README.md and docs/
// names an existing file or folder (a link into ../shared, beside the
// repository, is checked when the shared data is found).
func TestDocLinks(t *testing.T) {
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	shared := shareddata.Dir()
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(data), "\n") {
			for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				target, anchor, _ := strings.Cut(target, "#")
				if target == "" {
					target = filepath.Base(f)
				}
				p := filepath.Join(root, filepath.Dir(f), filepath.FromSlash(target))
				rel, err := filepath.Rel(root, p)
				if err != nil {
					t.Fatal(err)
				}
				rel = filepath.ToSlash(rel)
				if strings.HasPrefix(rel, "../shared/") {
					if shared == "" {
						continue
					}
					p = filepath.Join(filepath.Dir(shared), strings.TrimPrefix(rel, "../shared/"))
				}
				if _, err := os.Stat(p); err != nil {
					if _, ok := pendingDocs[strings.TrimSuffix(rel, "/")]; ok {
						continue
					}
					t.Errorf("%s:%d: link %q: %s does not exist", f, n+1, m[1], rel)
					continue
				}
				if anchor != "" && strings.HasSuffix(p, ".md") {
					if !anchors(t, p)[anchor] {
						t.Errorf("%s:%d: link %q: %s has no heading with anchor #%s", f, n+1, m[1], rel, anchor)
					}
				}
			}
		}
	}
	for p, issue := range pendingDocs {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			t.Logf("%s (%s) now exists: remove it from pendingDocs", p, issue)
		}
	}
}

// slug is GitHub's anchor of a heading: lower case, everything but
// letters, marks, digits, connector punctuation, spaces and hyphens
// dropped, spaces turned into hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsMark(r), unicode.IsDigit(r), unicode.Is(unicode.Pc, r), r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// anchors returns the heading anchors of a markdown file (a repeated
// heading's later anchors get -1, -2, …), ignoring fenced blocks.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		a := slug(h)
		if k := seen[a]; k > 0 {
			out[fmt.Sprintf("%s-%d", a, k)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestSlug checks heading anchors against ones GitHub gives.
func TestSlug(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"Docs that run", "docs-that-run"},
		{"`tailbound check`", "tailbound-check"},
		{"`tailbound simulate --level block`: prefix caches over block-hash traces", "tailbound-simulate---level-block-prefix-caches-over-block-hash-traces"},
		{"ET-LRU and the belief MDP", "et-lru-and-the-belief-mdp"},
		{"1. The paper's first figure", "1-the-papers-first-figure"},
		{"`tail-latency`: Tables 1–6, Figures 5 and 7 (seed 003) — 1.7 s", "tail-latency-tables-16-figures-5-and-7-seed-003--17-s"},
	}
	for _, tc := range tests {
		if got := slug(tc.heading); got != tc.want {
			t.Errorf("slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

// TestREADMELength keeps the README a front door: at most 300 lines, with
// everything else in the guide under docs/.
func TestREADMELength(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > 300 {
		t.Errorf("README.md has %d lines, more than 300: move detail into docs/ and link it from the README's map", n)
	}
}

// readsMooncake reports a command that reads the Mooncake traces without
// naming them: a suite that finds shared/data itself.
func readsMooncake(sh string) bool {
	for _, s := range []string{"--dataset both", "--dataset mooncake", "tables block-policies", "plot block-policies", "--fit mooncake"} {
		if strings.Contains(sh, s) {
			return true
		}
	}
	return false
}
