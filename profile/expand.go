package profile

import (
	"fmt"
	"os"
	"os/user"
	"regexp"
	"strings"
	"sync"
)

// Vars are the values ${name} expands to in a profile's command, cwd and env.
type Vars struct {
	WorkspaceRoot string
	Cwd           string
	Home          string
	User          string
}

// DefaultVars reads the process's surroundings.
func DefaultVars(workspaceRoot string) Vars {
	v := Vars{WorkspaceRoot: workspaceRoot, Home: os.Getenv("HOME"), User: os.Getenv("USER")}
	v.Cwd, _ = os.Getwd()
	if v.User == "" {
		if u, err := user.Current(); err == nil {
			v.User = u.Username
		}
	}
	return v
}

var variable = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`) })

// Expand returns a copy of the profile with every ${var} in its command,
// cwd and env replaced. An unknown variable is an error naming the known ones.
func (p *Profile) Expand(v Vars) (*Profile, error) {
	values := map[string]string{
		"workspaceRoot": v.WorkspaceRoot, "cwd": v.Cwd, "HOME": v.Home, "USER": v.User, "agent": p.Name,
	}
	var unknown []string
	expand := func(s string) string {
		return variable().ReplaceAllStringFunc(s, func(m string) string {
			name := m[2 : len(m)-1]
			if val, ok := values[name]; ok {
				return val
			}
			unknown = append(unknown, m)
			return m
		})
	}
	out := *p
	out.Command = make(Command, len(p.Command))
	for i, w := range p.Command {
		out.Command[i] = expand(w)
	}
	out.Cwd = expand(p.Cwd)
	out.WorktreeDir = expand(p.WorktreeDir)
	if p.Env != nil {
		out.Env = make(map[string]string, len(p.Env))
		for k, val := range p.Env {
			out.Env[k] = expand(val)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("%s: unknown variable %s; known: ${workspaceRoot}, ${cwd}, ${HOME}, ${USER}, ${agent}", p.where(), strings.Join(unknown, ", "))
	}
	return &out, nil
}

func (p *Profile) where() string {
	if p.Path != "" {
		return p.Path
	}
	return "profile of " + p.Name
}
