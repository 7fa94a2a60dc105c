package lineout

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestWholeLinesOnCancel: lines written through a small bufio buffer (which
// flushes mid-line) reach the output whole; after cancellation nothing
// more does, and what arrived is a prefix of whole lines.
func TestWholeLinesOnCancel(t *testing.T) {
	var out bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lw := New(ctx, &out)
	bw := bufio.NewWriterSize(lw, 16)
	var err error
	for i := 0; i < 1000 && err == nil; i++ {
		if i == 500 {
			cancel()
		}
		_, err = fmt.Fprintf(bw, `{"line":%d,"pad":"%s"}`+"\n", i, strings.Repeat("x", i%7))
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("writes after cancel: %v", err)
	}
	s := out.String()
	if !strings.HasSuffix(s, "\n") {
		t.Fatalf("output ends mid-line: %q", s[max(0, len(s)-40):])
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		if want := fmt.Sprintf(`{"line":%d,"pad":"%s"}`, i, strings.Repeat("x", i%7)); l != want {
			t.Fatalf("line %d = %q, want %q", i, l, want)
		}
	}
	if len(lines) > 500 {
		t.Errorf("%d lines passed after cancellation at line 500", len(lines))
	}
}

func TestCloseWritesLastLine(t *testing.T) {
	var out bytes.Buffer
	lw := New(context.Background(), &out)
	fmt.Fprint(lw, "a\nb")
	if out.String() != "a\n" {
		t.Errorf("before Close: %q", out.String())
	}
	if err := lw.Close(); err != nil || out.String() != "a\nb" {
		t.Errorf("after Close: %q, %v", out.String(), err)
	}
}

// TestCloseAfterCancel: a context done after every line was written whole
// leaves Close nil (the output is complete); with a partial last line
// pending, Close drops it and returns the context's error.
func TestCloseAfterCancel(t *testing.T) {
	for _, tc := range []struct {
		written string
		wantOut string
		wantErr bool
	}{
		{"a\nb\n", "a\nb\n", false},
		{"a\nb", "a\n", true},
		{"", "", false},
	} {
		var out bytes.Buffer
		ctx, cancel := context.WithCancel(context.Background())
		lw := New(ctx, &out)
		lw.Write([]byte(tc.written))
		cancel()
		err := lw.Close()
		if (err != nil) != tc.wantErr || out.String() != tc.wantOut {
			t.Errorf("%q: Close %v, output %q; want error %v, output %q", tc.written, err, out.String(), tc.wantErr, tc.wantOut)
		}
	}
}
