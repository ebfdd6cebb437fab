package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// docFiles are the README and every file of docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	return append([]string{filepath.Join("..", "..", "README.md")}, files...)
}

// docCommand is a command line a document gives, and where.
type docCommand struct {
	where   string // file:line
	line    string
	mention bool // a code span of the prose, which may name a command alone
}

// shellBlocks are the lines of a document's shell blocks (```sh), each
// continued line joined to the one it continues, with where each starts.
func shellBlocks(path string, text string) []docCommand {
	var out []docCommand
	inShell, fenced := false, false
	var pending strings.Builder
	start := 0
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			inShell = fenced && strings.TrimPrefix(line, "```") == "sh"
			continue
		}
		if !inShell {
			continue
		}
		if pending.Len() == 0 {
			start = i + 1
		}
		if strings.HasSuffix(line, `\`) {
			pending.WriteString(strings.TrimSuffix(line, `\`) + " ")
			continue
		}
		pending.WriteString(line)
		out = append(out, docCommand{where: filepath.Base(path) + ":" + strconv.Itoa(start), line: pending.String()})
		pending.Reset()
	}
	return out
}

// inlineCommands are the code spans of a document's prose that give a
// whole switchboard command.
func inlineCommands(path, text string) []docCommand {
	var out []docCommand
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			if strings.Contains(m[1], "...") || strings.Contains(m[1], "…") {
				continue // a form, not a command: `switchboard send ...`
			}
			out = append(out, docCommand{where: filepath.Base(path) + ":" + strconv.Itoa(i+1), line: m[1], mention: true})
		}
	}
	return out
}

// codeSpan is a code span that starts as a command does: switchboard, then
// a word or a flag (not "switchboard 0.9.0 (commit …)", its version line).
var codeSpan = regexp.MustCompile("`(switchboard [a-z-][^`]*)`")

// substitution is a command run for its output, $(...).
var substitution = regexp.MustCompile(`\$\(([^()]*)\)`)

// commandsOf splits a shell line into the switchboard command lines it
// runs, each as its words: comments, redirections and the programs around
// them left out; a command run for its output counted too.
func commandsOf(line string) [][]string {
	var out [][]string
	for _, m := range substitution.FindAllStringSubmatch(line, -1) {
		out = append(out, commandsOf(m[1])...)
	}
	line = substitution.ReplaceAllString(line, "X")
	for _, part := range splitOutside(line) {
		words := shellWords(part)
		for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
			words = words[1:] // VAR=value before the command
		}
		if len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/switchboard" {
			words = append([]string{"switchboard"}, words[3:]...)
		}
		if len(words) > 0 && words[0] == "switchboard" {
			out = append(out, words)
		}
	}
	return out
}

// splitOutside cuts a line at ;, &&, || and | outside quotes, and drops a
// comment.
func splitOutside(line string) []string {
	var parts []string
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' '):
			return append(parts, cur.String())
		case c == ';' || c == '|' || c == '&':
			parts = append(parts, cur.String())
			cur.Reset()
			for i+1 < len(line) && (line[i+1] == '|' || line[i+1] == '&') {
				i++
			}
			continue
		}
		cur.WriteByte(c)
	}
	return append(parts, cur.String())
}

// shellWords splits a command into its words as a shell would, quotes
// taken off; a redirection and what follows it end the command.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
				continue
			}
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case (c == '>' || c == '<') && !in:
			return words
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// parses reports why the words are not a switchboard command line the
// program takes ("" when they are): a command that exists, flags it has,
// as many arguments as it takes. Nothing is run. A mention names a command
// alone ("look with `switchboard diff`"): its arguments are not counted.
func parses(words []string, mention bool) string {
	root := newRootCmd(&streams{in: strings.NewReader(""), out: io.Discard, errOut: io.Discard}, &globals{})
	cmd, rest, err := root.Find(words[1:])
	if err != nil {
		return err.Error()
	}
	if mention && len(rest) == 0 {
		return ""
	}
	root.InitDefaultVersionFlag()
	cmd.InitDefaultHelpFlag()
	if err := cmd.ParseFlags(rest); err != nil && !errors.Is(err, pflag.ErrHelp) {
		return err.Error()
	}
	args := cmd.Flags().Args()
	if cmd.HasSubCommands() && len(args) > 0 {
		return "no command " + args[0] + " under " + cmd.CommandPath()
	}
	if err := cmd.ValidateArgs(args); err != nil {
		return err.Error()
	}
	return ""
}

// Every switchboard command the README and docs/ give, in a shell block or
// in a code span of the prose, is one the program takes: its command, its
// flags and its number of arguments are parsed by the program's own
// command tree, so a renamed command or flag fails here, not in a reader's
// terminal.
func TestEveryCommandInTheDocsIsOneTheProgramTakes(t *testing.T) {
	checked := 0
	for _, path := range docFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for _, c := range append(shellBlocks(path, text), inlineCommands(path, text)...) {
			for _, words := range commandsOf(c.line) {
				checked++
				if why := parses(words, c.mention); why != "" {
					t.Errorf("%s: %q: %s", c.where, strings.Join(words, " "), why)
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d commands found in the docs: is the extraction broken?", checked)
	}
	t.Logf("%d commands checked", checked)
}

// The README is a quickstart and a tour, not the reference: at most 250
// lines, and its contents list every file of docs/, each of which exists.
func TestTheREADMEIsShortAndListsEveryDoc(t *testing.T) {
	files := docFiles(t)
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	if n := strings.Count(readme, "\n"); n > 250 {
		t.Errorf("the README is %d lines; at most 250 (the reference goes into docs/)", n)
	}
	for _, doc := range files[1:] {
		link := "(docs/" + filepath.Base(doc) + ")"
		if !strings.Contains(readme, link) {
			t.Errorf("the README's contents do not list docs/%s", filepath.Base(doc))
		}
	}
	// Every link between the documents leads to one.
	link := regexp.MustCompile(`\]\(([^)#:]+\.md)\)`)
	for _, doc := range files {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			if _, err := os.Stat(filepath.Join(filepath.Dir(doc), m[1])); err != nil {
				t.Errorf("%s links %s, which is not there", filepath.Base(doc), m[1])
			}
		}
	}
}

// tourBlocks are the README tour's two shell blocks: the first terminal's
// and the second's.
func tourBlocks(t *testing.T) (first, second string) {
	t.Helper()
	data, err := os.ReadFile(docFiles(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	_, tour, ok := strings.Cut(string(data), "\n## A five-minute tour\n")
	tour, _, _ = strings.Cut(tour, "\n## ")
	var blocks []string
	for rest := tour; ok; {
		var block string
		if _, rest, ok = strings.Cut(rest, "```sh\n"); !ok {
			break
		}
		block, rest, _ = strings.Cut(rest, "```")
		blocks = append(blocks, block)
	}
	if len(blocks) < 2 {
		t.Fatalf("the README's tour has %d shell blocks; this test runs its first two: update it", len(blocks))
	}
	return blocks[0], blocks[1]
}

// The README's tour, run as written: the first block in one terminal (the
// master left running), the second in another, each command's exit status
// what the tour says. Between commands the script waits for the master to
// have routed what was sent, as a person reading each output would.
func TestTheREADMEsTourRunsAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a master")
	}
	first, second := tourBlocks(t)
	dir := filepath.Join(t.TempDir(), "team")
	const folder = "/tmp/team"
	if !strings.Contains(first, folder) || !strings.Contains(second, folder) {
		t.Fatalf("the tour no longer works in %s: update this test", folder)
	}
	first, second = strings.ReplaceAll(first, folder, dir), strings.ReplaceAll(second, folder, dir)
	const master = "switchboard master"
	before, _, ok := strings.Cut(first, master)
	if !ok {
		t.Fatalf("the tour's first block no longer starts %q: update this test", master)
	}
	env := append(os.Environ(), "SWITCHBOARD_AGENT=", "SWITCHBOARD_ROOT=")
	sh := func(script string) *exec.Cmd {
		cmd := exec.Command("bash", "-c", script)
		cmd.Env = env
		return cmd
	}
	if out, err := sh("set -e\n" + before).CombinedOutput(); err != nil {
		t.Fatalf("the tour's first commands: %v\n%s", err, out)
	}
	m := exec.Command("switchboard", "master")
	m.Dir, m.Env = dir, env
	var masterOut strings.Builder
	m.Stdout, m.Stderr = &masterOut, &masterOut
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Process.Signal(os.Interrupt); m.Wait() })

	// Each command's exit status goes to a file; after each, the master
	// routes what waits in the outboxes.
	statuses := filepath.Join(t.TempDir(), "statuses")
	wrapper := `switchboard() {
  command switchboard "$@"; local rc=$?
  echo "$rc switchboard $*" >> ` + statuses + `
  for _ in $(seq 1000); do compgen -G "` + dir + `/mailboxes/*/outbox/*.json" >/dev/null || break; sleep 0.01; done
  return $rc
}
`
	started := time.Now()
	out, _ := sh(wrapper + second).CombinedOutput()
	t.Logf("the tour's second terminal ran in %v", time.Since(started).Round(time.Millisecond))
	for _, want := range []string{"BLOCKED by the rules: tester_agent → reviewer_agent", "Code review request for login feature", "Code freeze at 17:00"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the tour's output does not show %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(statuses)
	if err != nil {
		t.Fatalf("no command of the tour ran: %v\n%s", err, out)
	}
	refused := map[string]bool{
		"switchboard send --as tester_agent --to reviewer_agent --title Found a bug": true,
		"switchboard show 1 --as tester_agent":                                       true,
		"switchboard rules explain tester_agent reviewer_agent":                      true, // blocked: exit 3
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		status, command, _ := strings.Cut(line, " ")
		want := "0"
		if refused[command] {
			want = "3"
		}
		if status != want {
			t.Errorf("%s exited %s; the tour says %s\n%s", command, status, want, out)
		}
	}
	reply := exec.Command("switchboard", "inbox", "--as", "developer_agent")
	reply.Dir, reply.Env = dir, env
	if got, _ := reply.CombinedOutput(); !strings.Contains(string(got), "Re: Code review request") {
		t.Errorf("the reviewer's reply did not reach the developer:\n%s\nthe master said:\n%s", got, masterOut.String())
	}
}
