// Package notify tells the person of a team what needs them, wherever
// they are: a command of theirs (a desktop or phone notifier) run with the
// text, or an HTTP endpoint (ntfy, a chat webhook) posted the text, as the
// workspace's notify.yaml says.
package notify
