package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/suite"
)

// updateReference rewrites docs/reference from the flag definitions:
// go test ./cmd/tailbound -run TestReference -update (the -update flag is
// shared with TestDocs, see docs_test.go).
var updateReference = updateDocs

// refSink is a standard output that takes a command's flags when --help
// is asked, instead of the printed help.
type refSink struct {
	bytes.Buffer
	command, synopsis string
	fs                *pflag.FlagSet
}

func (s *refSink) help(command, synopsis string, fs *pflag.FlagSet) {
	s.command, s.synopsis, s.fs = command, synopsis, fs
}

// subcommands lists each command's sub-commands, as its --help is asked
// (tables and plot take a suite; the suites come from the registry).
func subcommands() map[string][][]string {
	subs := map[string][][]string{
		"gen":       {{"birth-death"}, {"timestamps"}, {"prefix"}},
		"mdp":       {{"solve"}, {"simulate"}, {"onestep"}},
		"recompute": {{"roofline"}, {"cake"}, {"search"}, {"measure"}, {"profile"}},
		"latency":   {{"fit"}},
		"tables":    {{"--list"}},
		// solve and gap read other flags at the block level (a flag set of
		// their own, named by the command and its level).
		"solve": {{}, {"--level", "block"}},
		"gap":   {{}, {"--level", "block", "--objective", "tel"}},
	}
	for _, s := range suite.All() {
		subs["tables"] = append(subs["tables"], []string{s.Name})
		subs["plot"] = append(subs["plot"], []string{s.Name})
	}
	return subs
}

// helpPage is one command's flags, as --help gives them.
type helpPage struct {
	args              []string // the command line before --help
	command, synopsis string
	fs                *pflag.FlagSet
}

// helpPages asks every command and sub-command for its flags.
func helpPages(t *testing.T) []helpPage {
	subs := subcommands()
	var names []string
	for n := range commands() {
		names = append(names, n)
	}
	sort.Strings(names)
	var pages []helpPage
	for _, n := range names {
		lines := [][]string{{n}}
		if s, ok := subs[n]; ok {
			lines = nil
			for _, sub := range s {
				lines = append(lines, append([]string{n}, sub...))
			}
		}
		for _, args := range lines {
			var sink refSink
			code := runContext(context.Background(), append(append([]string{}, args...), "--help"), &sink, io.Discard)
			if code != 0 || sink.fs == nil {
				t.Errorf("%v --help: exit %d, no flags given to the sink", args, code)
				continue
			}
			if v := variantName(args); v != "" {
				sink.command = v
			}
			pages = append(pages, helpPage{args, sink.command, sink.synopsis, sink.fs})
		}
	}
	return pages
}

// TestFlagGroups: every flag of every command has a group (a line in
// sharedGroups or commandGroups), so that --help and the reference show
// it under its topic, not under "Other".
func TestFlagGroups(t *testing.T) {
	for _, p := range helpPages(t) {
		p.fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && flagGroup(p.command, f.Name) == "" {
				t.Errorf("%s: flag --%s has no group: add it to sharedGroups (or commandGroups) in flaggroups.go", p.command, f.Name)
			}
		})
	}
}

// TestSubcommandsListed: every flag set the commands define (newFlags in
// the sources) is one the reference asks for, so a new sub-command cannot
// be left out of it.
func TestSubcommandsListed(t *testing.T) {
	asked := map[string]bool{}
	for _, p := range helpPages(t) {
		asked[p.command] = true
		asked[strings.Fields(p.command)[0]+" SUITE"] = true
	}
	files, _ := filepath.Glob("*.go")
	re := regexp.MustCompile(`newFlags\("([^"]+)"(\s*\+)?`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			name := m[1]
			if m[2] != "" { // "tables "+s.Name
				name = strings.TrimSpace(name) + " SUITE"
			}
			if !asked[name] {
				t.Errorf("%s: flag set %q is not in the reference: add it to subcommands() in reference_test.go", f, name)
			}
		}
	}
}

// variantName names the page of a command line that selects another
// flag set of the same command ("": none): solve and gap at the block
// level (gap's only with --objective; without it, gap's own flags serve
// both levels).
func variantName(args []string) string {
	switch strings.Join(args, " ") {
	case "solve --level block":
		return "solve --level block"
	case "gap --level block --objective tel":
		return "gap --level block --objective"
	}
	return ""
}

// levelSummary is the summary of a command's block-level flag set ("":
// none; the command's own summary is its turn level's).
func levelSummary(command string) string {
	switch command {
	case "solve --level block":
		return "bounds on the hindsight TEL, SLO or percentile optimum of a prefix cache over a block-hash trace, whole or in windows"
	case "gap --level block --objective":
		return "every block policy's TEL, SLO violations or percentile beside the bounds on the optimum, per capacity"
	}
	return ""
}

// pageSummary is the summary a reference page and the index give p.
func pageSummary(cmds map[string]command, p helpPage) string {
	if s := levelSummary(p.command); s != "" {
		return s
	}
	return cmds[p.args[0]].summary
}

// referencePage renders a command's reference page in markdown.
func referencePage(p helpPage, summary string) string {
	thisBuild := regexp.MustCompile(` \(this build: [^)]*\)`) // the build-dependent part of a flag's help
	var b strings.Builder
	fmt.Fprintf(&b, "# tailbound %s\n\n", p.command)
	b.WriteString("<!-- generated from the flag definitions by `go test ./cmd/tailbound -run TestReference -update`; do not edit -->\n\n")
	if summary != "" {
		fmt.Fprintf(&b, "%s.\n\n", upperFirst(summary))
	}
	fmt.Fprintf(&b, "Usage: `tailbound %s`\n", p.synopsis) // inline: a synopsis, not a command to run
	esc := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }
	for _, g := range groupFlags(p.command, p.fs) {
		fmt.Fprintf(&b, "\n## %s\n\n| flag | value | default | meaning |\n| --- | --- | --- | --- |\n", g.Title)
		g.Flags.VisitAll(func(f *pflag.Flag) {
			kind, usage := pflag.UnquoteUsage(f)
			// which solvers this build has depends on its tags (coin); the
			// reference is the same for every build, --help says.
			usage = thisBuild.ReplaceAllString(usage, " (--help: those in this build)")
			def := f.DefValue
			switch def {
			case "", "false", "[]":
				def = ""
			default:
				def = "`" + def + "`"
			}
			if kind == "" {
				kind = "switch"
			}
			fmt.Fprintf(&b, "| `--%s` | %s | %s | %s |\n", f.Name, esc(kind), esc(def), esc(usage))
		})
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// pageFile is the reference file of a command: its words joined by "-".
func pageFile(command string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(command, "--", "")), "-") + ".md"
}

// referenceIndex lists the pages with the commands' summaries.
func referenceIndex(pages []helpPage) string {
	var b strings.Builder
	b.WriteString("# Command reference\n\n")
	b.WriteString("<!-- generated from the flag definitions by `go test ./cmd/tailbound -run TestReference -update`; do not edit -->\n\n")
	b.WriteString("One page per command and sub-command, its flags grouped by topic as `tailbound COMMAND --help` groups them.\n")
	b.WriteString("The pages are generated from the flag definitions; `go test ./cmd/tailbound -run TestReference` fails when one is stale.\n")
	b.WriteString("How tables fit a terminal: [terminal.md](terminal.md).\n\n| command | what it does |\n| --- | --- |\n")
	cmds := commands()
	for _, p := range pages {
		fmt.Fprintf(&b, "| [%s](%s) | %s |\n", p.command, pageFile(p.command), strings.ReplaceAll(pageSummary(cmds, p), "|", `\|`))
	}
	return b.String()
}

// TestReference: docs/reference holds exactly the pages the flag
// definitions give; with -update it rewrites them.
func TestReference(t *testing.T) {
	dir := filepath.Join("..", "..", "docs", "reference")
	pages := helpPages(t)
	want := map[string]string{"README.md": referenceIndex(pages)}
	cmds := commands()
	for _, p := range pages {
		summary := ""
		if len(p.args) == 1 || levelSummary(p.command) != "" {
			summary = pageSummary(cmds, p)
		}
		want[pageFile(p.command)] = referencePage(p, summary)
	}
	if *updateReference {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		old, _ := filepath.Glob(filepath.Join(dir, "*.md"))
		for _, f := range old {
			if _, ok := want[filepath.Base(f)]; !ok && isGenerated(f) {
				os.Remove(f)
			}
		}
		for name, text := range want {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for name, text := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != text {
			t.Errorf("docs/reference/%s is stale (or missing): run go test ./cmd/tailbound -run TestReference -update", name)
		}
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	for _, f := range old {
		if _, ok := want[filepath.Base(f)]; !ok && isGenerated(f) {
			t.Errorf("%s was generated for a command that is gone: run go test ./cmd/tailbound -run TestReference -update", f)
		}
	}
}

// isGenerated reports whether the file f says it is generated.
func isGenerated(f string) bool {
	b, err := os.ReadFile(f)
	return err == nil && bytes.Contains(b, []byte("do not edit -->"))
}

// TestHelpGrouped: simulate --help reads as sections: input, model,
// policies, block level and output each have a heading, every flag comes
// once, and --capacity sits under the model's heading.
func TestHelpGrouped(t *testing.T) {
	code, help, _ := runCLI("simulate", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var headings []string
	section := map[string]string{}
	cur := ""
	for _, l := range strings.Split(help, "\n") {
		if strings.HasSuffix(l, ":") && !strings.HasPrefix(l, " ") {
			cur = strings.TrimSuffix(l, ":")
			headings = append(headings, cur)
			continue
		}
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "--") {
			name := strings.SplitN(strings.TrimPrefix(f[0], "--"), "[", 2)[0]
			if _, dup := section[name]; dup {
				t.Errorf("--%s listed twice", name)
			}
			section[name] = cur
		}
	}
	for _, h := range []string{"Input", "Model: cache, latency and threshold", "Policies", "Block level", "Output"} {
		if !slices.Contains(headings, h) {
			t.Errorf("no section %q in %v", h, headings)
		}
	}
	if section["capacity"] != "Model: cache, latency and threshold" || section["trace"] != "Input" || section["format"] != "Output" {
		t.Errorf("sections: capacity %q, trace %q, format %q", section["capacity"], section["trace"], section["format"])
	}
	if len(section) < 30 {
		t.Errorf("%d flags found in the help, want simulate's (over 30)", len(section))
	}
}
