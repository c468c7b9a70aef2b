package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultDrain bounds how long Read waits at end of input for the answers
// to requests already received.
const DefaultDrain = 30 * time.Second

// Transport is an mcp.Transport over a line-oriented reader and writer
// (standard input and output for serve) that survives malformed input;
// see the package comment.
type Transport struct {
	In  io.Reader
	Out io.Writer
	// MaxLine caps one inbound line in bytes (0: DefaultMaxLine).
	MaxLine int
	// Drain bounds the wait at end of input for pending answers (0: DefaultDrain).
	Drain time.Duration
	// Logger receives one warning per rejected line (nil: discard).
	Logger *slog.Logger
}

// Std returns a Transport over the process's standard input and output.
func Std(logger *slog.Logger) *Transport {
	return &Transport{In: os.Stdin, Out: os.Stdout, Logger: logger}
}

// Connect implements mcp.Transport. It starts the goroutine that reads
// In; like the SDK's, it stays blocked in a read of In after Close when In
// cannot be interrupted (stdin), which ends with the process.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxLine
	if limit <= 0 {
		limit = DefaultMaxLine
	}
	drain := t.Drain
	if drain <= 0 {
		drain = DefaultDrain
	}
	logger := t.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &conn{
		out: t.Out, ids: newIDs(), drain: drain, log: logger, limit: limit,
		incoming: make(chan inbound), closed: make(chan struct{}),
	}
	go c.readLoop(t.In)
	return c, nil
}

// inbound is one message (or the final read error) from the read loop.
type inbound struct {
	msg jsonrpc.Message
	err error
}

// conn is the mcp.Connection of a Transport.
type conn struct {
	out      io.Writer
	writeMu  sync.Mutex // one line at a time, whole
	ids      *ids
	drain    time.Duration
	limit    int
	log      *slog.Logger
	incoming chan inbound
	closed   chan struct{}
	once     sync.Once
}

// errClosed is returned by Write after Close.
var errClosed = errors.New("stdio: connection closed")

// readLoop reads lines until In ends, answering bad ones itself and
// handing good ones to Read.
func (c *conn) readLoop(in io.Reader) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br, c.limit)
		if tooLong {
			c.reject(errTooLong(c.limit))
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			if m := c.decode(line); m != nil {
				select {
				case c.incoming <- inbound{msg: m}:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			select {
			case c.incoming <- inbound{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// decode turns a line into a message for the SDK, or answers it with an
// error and returns nil.
func (c *conn) decode(line []byte) jsonrpc.Message {
	d, rerr := decodeLine(line)
	if rerr != nil {
		c.reject(rerr)
		return nil
	}
	if d == nil {
		c.log.Warn("stdio: ignored a malformed response from the client")
		return nil
	}
	req, ok := d.msg.(*jsonrpc.Request)
	if !ok {
		return d.msg
	}
	if d.rawID != nil {
		req.ID = c.ids.add(d.rawID, req.Method)
	} else if req.Method == "notifications/cancelled" {
		req.Params = c.cancelledParams(req.Params)
	}
	return req
}

// cancelledParams marks the request a cancellation names, so that it gets
// no answer (MCP: the receiver of a cancellation does not respond to the
// request), and points the cancellation at its private id, so the SDK
// finds it and stops the handler.
func (c *conn) cancelledParams(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	n, ok := c.ids.cancel(p["requestId"])
	if !ok {
		return params
	}
	p["requestId"] = json.RawMessage(fmt.Sprint(n))
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// reject answers a bad line.
func (c *conn) reject(e *rpcError) {
	c.log.Warn("stdio: rejected an inbound line", "code", e.code, "error", e.message)
	if err := c.writeLine(encodeError(e)); err != nil {
		c.log.Warn("stdio: cannot write an error reply", "error", err)
	}
}

// Read implements mcp.Connection. At the end of input it first waits
// (bounded by the drain time) until every request received has been
// answered, since the SDK cancels the handlers still running once Read
// fails.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case in := <-c.incoming:
		if in.err != nil {
			c.waitAnswered(ctx)
			return nil, in.err
		}
		return in.msg, nil
	}
}

// waitAnswered blocks until no request is pending, the drain time is up,
// the context ends or the connection closes.
func (c *conn) waitAnswered(ctx context.Context) {
	deadline := time.NewTimer(c.drain)
	defer deadline.Stop()
	for {
		n, changed := c.ids.pending()
		if n == 0 {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			c.log.Warn("stdio: end of input with requests unanswered", "pending", n)
			return
		case <-ctx.Done():
			return
		case <-c.closed:
			return
		}
	}
}

// Write implements mcp.Connection: a response gets its client's id back.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var call pendingCall
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if call, ok = c.ids.take(resp.ID); ok && call.cancelled {
			// The SDK answers every call, a cancelled one with "context
			// canceled"; MCP says a cancelled request gets no response.
			c.log.Debug("stdio: no answer to a cancelled request", "method", call.method)
			return nil
		}
		msg = withCode(resp)
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("stdio: encode: %w", err)
	}
	if call.raw != nil {
		if data, err = withID(data, call.raw); err != nil {
			return fmt.Errorf("stdio: restore id: %w", err)
		}
	}
	return c.writeLine(data)
}

// withCode gives an error response without a JSON-RPC code one (the SDK
// sends such an error as code 0, which JSON-RPC does not define). What the
// SDK leaves uncoded are its own checks of the session's state: a call
// before initialize, and a second initialize. Both are invalid requests
// (-32600). (Initialize with null params, which the SDK also leaves
// uncoded, is answered by decodeLine.)
func withCode(resp *jsonrpc.Response) *jsonrpc.Response {
	var we *jsonrpc.Error
	if resp.Error == nil || errors.As(resp.Error, &we) && we.Code != 0 {
		return resp
	}
	coded := *resp
	coded.Error = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: resp.Error.Error()}
	return &coded
}

// withID replaces the id of an encoded message. The SDK encodes responses
// with "jsonrpc" then "id" first, so the id is usually spliced in place;
// otherwise the message is decoded and re-encoded.
func withID(data []byte, raw json.RawMessage) ([]byte, error) {
	const head = `{"jsonrpc":"2.0","id":`
	if bytes.HasPrefix(data, []byte(head)) {
		rest := data[len(head):]
		if end := bytes.IndexAny(rest, ",}"); end > 0 && idKind(rest[:end]) == 'n' {
			out := make([]byte, 0, len(data)+len(raw))
			out = append(append(append(out, head...), raw...), rest[end:]...)
			return out, nil
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	m["id"] = raw
	return json.Marshal(m)
}

// writeLine writes one message and its newline in a single call.
func (c *conn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return errClosed
	default:
	}
	line := make([]byte, 0, len(data)+1)
	line = append(append(line, data...), '\n')
	if _, err := c.out.Write(line); err != nil {
		return fmt.Errorf("stdio: write: %w", err)
	}
	return nil
}

// Close implements mcp.Connection. It waits for a write in progress, so
// a reply being written is never cut.
func (c *conn) Close() error {
	c.once.Do(func() {
		c.writeMu.Lock()
		close(c.closed)
		c.writeMu.Unlock()
	})
	return nil
}

// SessionID implements mcp.Connection; stdio has one session and no id.
func (c *conn) SessionID() string { return "" }
