package clientinbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// ErrNotTaken is a send the session's socket did not take to its end: the
// connection was refused or cut before the session read the whole message.
var ErrNotTaken = errors.New("clientinbox: the session did not take the message")

// Sender is the name a message says it comes from when it has no one
// sender, in the client's record of where a message came from.
const Sender = "switchboard"

// sendWait bounds one send: a session reads its socket at once, idle or
// busy, and closes its side when it has read everything. A busy machine
// may keep it longer: past the write, what the session did with the
// message is the transcript's to say.
const sendWait = 2 * time.Second

// Send hands text to the session's inbox, as one user message from the
// sender named (Sender when ""), whom the client tells its model to answer
// with its own tool: the client
// shows it to its model at its next tool boundary, or as a new turn when
// it is idle. It returns once the session has read the whole message and
// closed its end; that it reached the model, the transcript says
// (Transcript.Holds).
func (s Session) Send(ctx context.Context, from, text string) error {
	if from == "" {
		from = Sender
	}
	if s.Socket == "" {
		return fmt.Errorf("session %s has no inbox socket: %w", s.SessionID, ErrNoSession)
	}
	token, err := s.token()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, sendWait)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", s.Socket)
	if err != nil {
		return fmt.Errorf("reach the inbox of session %s: %w: %w", s.SessionID, err, ErrNotTaken)
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		if err := conn.SetDeadline(deadline); err != nil {
			return fmt.Errorf("reach the inbox of session %s: %w: %w", s.SessionID, err, ErrNotTaken)
		}
	}
	lines, err := encodeLines(
		map[string]any{"type": "auth", "token": token},
		map[string]any{"type": "user", "from": from, "message": map[string]any{"role": "user", "content": text}},
	)
	if err != nil {
		return err
	}
	if _, err := conn.Write(lines); err != nil {
		return fmt.Errorf("write to the inbox of session %s: %w: %w", s.SessionID, err, ErrNotTaken)
	}
	// The session reads to the end of what was written and then closes its
	// side. Its close is waited for, so that the connection is not cut
	// before it read everything, but not believed: whether it took the
	// message, the transcript says (Transcript.Follow).
	if err := conn.(*net.UnixConn).CloseWrite(); err != nil {
		return fmt.Errorf("finish the message to session %s: %w: %w", s.SessionID, err, ErrNotTaken)
	}
	_, _ = io.Copy(io.Discard, conn)
	return nil
}

// encodeLines is each value as one line of JSON.
func encodeLines(values ...any) ([]byte, error) {
	var out []byte
	for _, v := range values {
		line, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode a line for the inbox: %w", err)
		}
		out = append(append(out, line...), '\n')
	}
	return out, nil
}
