package profile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"switchboard/internal/yamlsyntax"
	"switchboard/mailbox"
)

// Kinds of agent: what runs in the pane decides how its hooks are wired and
// whether the master may type into it.
const (
	KindClaude  = "claude"
	KindCodex   = "codex"
	KindGemini  = "gemini"
	KindShell   = "shell"   // a person at a shell: never typed at
	KindGeneric = "generic" // any other program; idle when its screen is still
)

var kinds = []string{KindClaude, KindCodex, KindGemini, KindShell, KindGeneric}

// NpmPackage is the npm package that installs the client of an agent kind;
// "" for kinds that are not an agent client.
func NpmPackage(kind string) string {
	return map[string]string{
		KindClaude: "@anthropic-ai/claude-code",
		KindCodex:  "@openai/codex",
		KindGemini: "@google/gemini-cli",
	}[kind]
}

// Where an agent's permission prompts go (Profile.Approvals).
const (
	ApprovalsParent = "parent"
	ApprovalsPane   = "pane"
	ApprovalsDeny   = "deny"
)

// DefaultApprovalTimeout is how long a permission prompt sent up waits.
const DefaultApprovalTimeout = 300 * time.Second

// ApprovalsFor is where the agent's permission prompts go: the profile's
// choice, else its parent's for a spawned agent, else its pane.
func (p *Profile) ApprovalsFor(spawned bool) string {
	switch {
	case p.Approvals != "":
		return p.Approvals
	case spawned:
		return ApprovalsParent
	}
	return ApprovalsPane
}

// Timeout is how long a permission prompt sent up waits for an answer.
func (p *Profile) Timeout() time.Duration {
	if p.ApprovalTimeout > 0 {
		return p.ApprovalTimeout
	}
	return DefaultApprovalTimeout
}

// Profile is agents/<name>.yaml: how one agent is run.
type Profile struct {
	Name               string            `yaml:"name" json:"name"`
	DisplayName        string            `yaml:"display_name" json:"display_name"`
	Description        string            `yaml:"description" json:"description,omitempty"`
	Kind               string            `yaml:"kind" json:"kind"`
	Command            Command           `yaml:"command" json:"command"`
	Cwd                string            `yaml:"cwd" json:"cwd,omitempty"`
	Env                map[string]string `yaml:"env" json:"env,omitempty"`
	Model              string            `yaml:"model" json:"model,omitempty"`
	SystemInstructions string            `yaml:"system_instructions" json:"system_instructions,omitempty"`
	// Approvals says where the client's permission prompts go: to the
	// agent's parent ("parent"), to the person at its pane ("pane"), or
	// refused ("deny"). Empty is parent for a spawned agent, else pane.
	Approvals string `yaml:"approvals" json:"approvals,omitempty"`
	// ApprovalTimeout is how long a prompt sent up waits for an answer
	// before it is denied; 0 is DefaultApprovalTimeout.
	ApprovalTimeout time.Duration `yaml:"approval_timeout" json:"approval_timeout,omitempty"`
	// Fresh starts the agent's client on a new conversation each time the
	// team comes up, not on the one it had (see Launch.Resume).
	Fresh bool `yaml:"fresh" json:"fresh,omitempty"`
	// Budget bounds what the agent's client may spend in a day.
	Budget *Budget `yaml:"budget" json:"budget,omitempty"`

	// Worktree runs the agent in a git worktree of its own, on branch
	// switchboard/<agent>, made from the repository that holds its folder
	// (package worktree).
	Worktree bool `yaml:"worktree" json:"worktree,omitempty"`
	// WorktreeBase is the ref a new tree starts from; empty is the main
	// checkout's HEAD when the agent starts (a helper's: its parent's branch,
	// when the parent has a tree).
	WorktreeBase string `yaml:"worktree_base" json:"worktree_base,omitempty"`
	// WorktreeCopy are files git ignores (.env) copied into a tree, never
	// over a file it has.
	WorktreeCopy []string `yaml:"worktree_copy" json:"worktree_copy,omitempty"`
	// WorktreeSetup is a shell command run once in a new tree, within
	// WorktreeSetupTimeout (0 is ten minutes).
	WorktreeSetup        string        `yaml:"worktree_setup" json:"worktree_setup,omitempty"`
	WorktreeSetupTimeout time.Duration `yaml:"worktree_setup_timeout" json:"worktree_setup_timeout,omitempty"`
	// WorktreeDir is the folder of the trees; empty is .switchboard/worktrees
	// at the top of the repository.
	WorktreeDir string `yaml:"worktree_dir" json:"worktree_dir,omitempty"`

	// Path is the file the profile came from; empty for a default profile.
	Path string `yaml:"-" json:"path,omitempty"`
	// kindSet tells a kind the file gave from the default, which a spawned
	// agent takes from its parent instead.
	kindSet bool
}

// Command is what runs in the pane. In a profile it is a list, or a string
// split as a shell would split it.
type Command []string

// UnmarshalYAML accepts a list of words or one string.
func (c *Command) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		words, err := SplitCommand(n.Value)
		if err != nil {
			return fmt.Errorf("line %d: command: %w", n.Line, err)
		}
		*c = words
		return nil
	case yaml.SequenceNode:
		var words []string
		if err := n.Decode(&words); err != nil {
			return fmt.Errorf("line %d: command must be a list of words: %w", n.Line, err)
		}
		*c = words
		return nil
	default:
		return fmt.Errorf("line %d: command must be a string or a list of words", n.Line)
	}
}

// Error is a problem in a profile file, with where it is.
type Error = yamlsyntax.Error

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+): (.*)`) })

// LoadProfile reads and validates one profile file. The file's name (less
// .yaml, .yml or .json) must be the agent's name.
func LoadProfile(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read profile: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	p := &Profile{Path: path}
	if err := dec.Decode(p); err != nil && !errors.Is(err, io.EOF) { // an empty file takes every default
		return nil, profileError(path, data, err)
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if p.Name == "" {
		p.Name = base
	}
	if p.Name != base {
		return nil, &Error{Path: path, Msg: fmt.Sprintf("name %q differs from the file name %s.yaml: the profile of an agent is named after it; make them the same (or leave name out)", p.Name, base)}
	}
	if err := p.validate(); err != nil {
		return nil, &Error{Path: path, Msg: err.Error()}
	}
	return p, nil
}

func profileError(path string, data []byte, err error) error {
	if line, msg, ok := yamlsyntax.Explain(data, err); ok {
		return &Error{Path: path, Line: line, Msg: msg}
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		text := m[2]
		if field, ok := strings.CutPrefix(text, "field "); ok {
			if name, _, ok := strings.Cut(field, " not found"); ok {
				text = fmt.Sprintf("unknown key %q (known: name, display_name, description, kind, command, cwd, env, model, system_instructions, approvals, approval_timeout, worktree, worktree_base, worktree_copy, worktree_setup, worktree_setup_timeout, worktree_dir)", name)
			}
		}
		return &Error{Path: path, Line: line, Msg: text}
	}
	return &Error{Path: path, Msg: msg}
}

func (p *Profile) validate() error {
	if err := mailbox.ValidateAgentName(p.Name); err != nil {
		return err
	}
	p.kindSet = p.Kind != ""
	if p.Kind == "" {
		p.Kind = KindGeneric
		if len(p.Command) == 0 {
			p.Kind = KindShell
		}
	}
	if !slices.Contains(kinds, p.Kind) {
		return fmt.Errorf("kind %q is not one of %s", p.Kind, strings.Join(kinds, ", "))
	}
	if p.DisplayName == "" {
		p.DisplayName = DisplayName(p.Name)
	}
	if strings.ContainsAny(p.DisplayName, "\r\n\x1b") {
		return fmt.Errorf("display_name must be one line of plain text")
	}
	if p.Approvals != "" && !slices.Contains([]string{ApprovalsParent, ApprovalsPane, ApprovalsDeny}, p.Approvals) {
		return fmt.Errorf("approvals %q is not one of parent, pane, deny", p.Approvals)
	}
	if p.WorktreeSetupTimeout < 0 {
		return fmt.Errorf("worktree_setup_timeout is %s; give a positive duration, like 10m", p.WorktreeSetupTimeout)
	}
	if p.ApprovalTimeout < 0 {
		return fmt.Errorf("approval_timeout is %s; give a positive duration, like 300s", p.ApprovalTimeout)
	}
	return nil
}

// DisplayName makes a name for people from an agent name:
// developer_agent → Developer Agent.
func DisplayName(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' })
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// LoadProfiles reads every profile in a workspace's profiles folder
// (workspace.Profiles), by name. A workspace without the folder has no
// profiles.
func LoadProfiles(dir string) (map[string]*Profile, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*Profile{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read profiles: %w", err)
	}
	profiles := make(map[string]*Profile)
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
			continue
		}
		p, err := LoadProfile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if other, dup := profiles[p.Name]; dup {
			return nil, fmt.Errorf("agent %s has two profiles: %s and %s; keep one", p.Name, other.Path, p.Path)
		}
		profiles[p.Name] = p
	}
	return profiles, nil
}

// ShellProfile is the profile of an agent the rules name but no file
// describes: the user's shell, with a person at it.
func ShellProfile(name string) *Profile {
	return &Profile{Name: name, DisplayName: DisplayName(name), Kind: KindShell, Cwd: "${workspaceRoot}"}
}
