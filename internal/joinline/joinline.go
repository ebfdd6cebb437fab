package joinline

import (
	"net/url"
	"strings"

	"switchboard/internal/safetext"
)

// PasswordEnv is the environment variable in which a host is given its
// password to the hub, never among the command's arguments.
const PasswordEnv = "SWITCHBOARD_HUB_PASSWORD"

// Line is one host's join line.
type Line struct {
	Host string
	// URL is the hub's (a cluster's list, comma-separated), with no
	// password in it.
	URL string
	// Password is the host's, given in PasswordEnv; "" for a
	// host that joins by its credentials (a --hub-creds flag in More).
	Password string
	// More are the flags after --host: --team, --hub-ca, --hub-creds.
	More []string
}

const (
	lead    = "on "
	middle  = ", in its workspace: "
	command = "switchboard up --hub "
)

// String is the line as a hub prints it, each word quoted for sh.
func (l Line) String() string {
	var b strings.Builder
	b.WriteString(lead + l.Host + middle)
	if l.Password != "" {
		b.WriteString(PasswordEnv + "=" + safetext.ShellWord(l.Password) + " ")
	}
	b.WriteString(command + safetext.ShellWord(l.URL) + " --host " + safetext.ShellWord(l.Host))
	for _, m := range l.More {
		b.WriteString(" " + safetext.ShellWord(m))
	}
	return b.String()
}

// URLWithPassword is the hub's URL with the host's name and password in
// each URL of it, as a master may be given it.
func (l Line) URLWithPassword() string {
	if l.Password == "" {
		return l.URL
	}
	urls := strings.Split(l.URL, ",")
	for i, raw := range urls {
		if u, err := url.Parse(raw); err == nil {
			u.User = url.UserPassword(l.Host, l.Password)
			urls[i] = u.String()
		}
	}
	return strings.Join(urls, ",")
}

// Parse reads a join line; ok is false when text is not one.
func Parse(text string) (l Line, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), lead)
	if !ok {
		return Line{}, false
	}
	host, rest, ok := strings.Cut(rest, middle)
	if !ok {
		return Line{}, false
	}
	words, ok := shellWords(rest)
	if !ok || len(words) == 0 {
		return Line{}, false
	}
	if pw, found := strings.CutPrefix(words[0], PasswordEnv+"="); found {
		l.Password, words = pw, words[1:]
	}
	if len(words) < 6 || words[0] != "switchboard" || words[1] != "up" || words[2] != "--hub" || words[4] != "--host" || words[5] != host {
		return Line{}, false
	}
	l.Host, l.URL, l.More = host, words[3], words[6:]
	return l, true
}

// shellWords splits text as sh would split the words safetext.ShellWord
// quotes: bare words, and words in single quotes with '\” for a quote.
func shellWords(text string) ([]string, bool) {
	var words []string
	var word strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(text); i++ {
		ch := text[i]
		switch {
		case quoted && ch == '\'':
			quoted = false
		case quoted:
			word.WriteByte(ch)
		case ch == '\'':
			quoted, inWord = true, true
		case ch == '\\' && i+1 < len(text):
			i++
			word.WriteByte(text[i])
			inWord = true
		case ch == ' ' || ch == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	if quoted {
		return nil, false
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, true
}
