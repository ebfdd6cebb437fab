package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLine is the longest line Stdio takes as one message.
const DefaultMaxLine = 16 << 20

// Stdio is the MCP transport of newline-delimited JSON-RPC on a reader and
// a writer that no input ends: a line that is not a JSON-RPC 2.0 message
// is answered with the JSON-RPC error (-32700 for a line that is not JSON,
// -32600 for JSON that is not one message) and the next line is read; a
// line longer than MaxLine is answered so and skipped. At the end of the
// input every call read before it is answered before the connection ends.
type Stdio struct {
	In      io.Reader
	Out     io.Writer
	MaxLine int // 0 is DefaultMaxLine
}

// Connect implements mcp.Transport.
func (t *Stdio) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxLine
	if limit <= 0 {
		limit = DefaultMaxLine
	}
	c := &stdioConn{
		out:      t.Out,
		incoming: make(chan jsonrpc.Message),
		ended:    make(chan struct{}),
		closed:   make(chan struct{}),
		answered: make(chan struct{}, 1),
		pending:  map[jsonrpc.ID]bool{},
	}
	go c.readLines(bufio.NewReaderSize(t.In, 64<<10), limit)
	return c, nil
}

// stdioConn is Stdio's connection.
type stdioConn struct {
	out     io.Writer
	writeMu sync.Mutex

	incoming  chan jsonrpc.Message // messages read, in order
	ended     chan struct{}        // closed at the end of the input
	closed    chan struct{}        // closed by Close
	closeOnce sync.Once
	answered  chan struct{} // a call was answered

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // calls read and not yet answered
}

// readLines reads the input to its end, handing on each message and
// answering each line that is not one.
func (c *stdioConn) readLines(r *bufio.Reader, limit int) {
	defer close(c.ended)
	for {
		line, whole, err := readLine(r, limit)
		switch {
		case !whole:
			c.refuse(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: a line over %d bytes was skipped; send one message a line, each under that", limit))
		case len(bytes.TrimSpace(line)) > 0:
			if msg := c.message(line); msg != nil {
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line without its newline, at most limit bytes of it:
// whole is false when the line was longer, and the rest of it is skipped.
func readLine(r *bufio.Reader, limit int) (line []byte, whole bool, err error) {
	whole = true
	for {
		part, err := r.ReadSlice('\n')
		if whole && len(line)+len(part) <= limit+1 { // +1: the newline
			line = append(line, part...)
		} else {
			whole, line = false, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), whole, err
	}
}

// message is the JSON-RPC message of line, or nil when the line was not
// one and has been answered with the error.
func (c *stdioConn) message(line []byte) jsonrpc.Message {
	if !utf8.Valid(line) {
		c.refuse(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: the line is not UTF-8")
		return nil
	}
	var value any
	if err := json.Unmarshal(line, &value); err != nil {
		c.refuse(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: "+err.Error())
		return nil
	}
	if _, batch := value.([]any); batch {
		c.refuse(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: batches are not taken; send one message a line")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.refuse(idOf(value), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		return msg
	}
	c.mu.Lock()
	taken := c.pending[req.ID]
	c.pending[req.ID] = true
	c.mu.Unlock()
	if taken {
		c.refuse(req.ID, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: id %v is already that of a call not yet answered", req.ID.Raw()))
		return nil
	}
	return msg
}

// idOf is the id of a message that could not be decoded, where it has a
// valid one.
func idOf(value any) jsonrpc.ID {
	object, _ := value.(map[string]any)
	id, err := jsonrpc.MakeID(object["id"])
	if err != nil {
		return jsonrpc.ID{}
	}
	return id
}

// refuse answers a line that was not a message with the JSON-RPC error.
func (c *stdioConn) refuse(id jsonrpc.ID, code int64, message string) {
	data, err := json.Marshal(struct {
		JSONRPC string        `json:"jsonrpc"`
		ID      any           `json:"id"`
		Error   jsonrpc.Error `json:"error"`
	}{"2.0", id.Raw(), jsonrpc.Error{Code: code, Message: message}})
	if err == nil {
		_ = c.writeLine(data)
	}
}

// Read implements mcp.Connection. At the end of the input it returns
// io.EOF once every call read has been answered.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.incoming:
		return msg, nil
	case <-c.ended:
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for { // every message read was handed on before the end was told
		c.mu.Lock()
		waiting := len(c.pending)
		c.mu.Unlock()
		if waiting == 0 {
			return nil, io.EOF
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Write implements mcp.Connection.
func (c *stdioConn) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	// The id is free before the answer is written: a client may use it
	// again as soon as it reads the answer.
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		defer func() {
			select {
			case c.answered <- struct{}{}:
			default:
			}
		}()
	}
	return c.writeLine(data)
}

// writeLine writes one message and its newline.
func (c *stdioConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return errors.New("the connection is closed")
	default:
	}
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Close implements mcp.Connection. A read of the input already under way
// is left to end with the process.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection.
func (c *stdioConn) SessionID() string { return "" }
