package stdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// DefaultMaxLine is the default cap on one inbound line, in bytes.
const DefaultMaxLine = 8 << 20

// readLine returns the next line of br without its newline. A line longer
// than limit is consumed to its end without being kept: the result is then
// nil with tooLong set, so memory stays bounded by limit whatever the input.
// err is io.EOF after the last line (which may lack a newline).
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > limit+1 { // +1: the newline itself is not counted
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			return buf, tooLong, err
		default:
			return bytes.TrimSuffix(buf, []byte{'\n'}), tooLong, nil
		}
	}
}

// rpcError is the answer to a line that is not a valid JSON-RPC message.
type rpcError struct {
	id      json.RawMessage // the request's id when it could be read, else nil (sent as null)
	code    int64
	message string
}

// decoded is what one valid line carries: a message for the SDK, with the
// client's raw id when it is a request.
type decoded struct {
	msg   jsonrpc.Message
	rawID json.RawMessage // set for requests (calls) only
}

// maxQuote caps how much of a rejected value an error message repeats.
const maxQuote = 200

// decodeLine checks one line against JSON-RPC 2.0 (as MCP restricts it:
// no batches, ids are strings or numbers) and returns either a message for
// the SDK or the error to answer. Requests come back without their id;
// the caller assigns a private one. A nil result and nil error means the
// line is to be ignored (a malformed response, which JSON-RPC never answers).
func decodeLine(line []byte) (*decoded, *rpcError) {
	var raw json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return nil, &rpcError{code: jsonrpc.CodeParseError, message: "parse error: " + quoteErr(err)}
	}
	switch raw[0] {
	case '{':
	case '[':
		return nil, &rpcError{code: jsonrpc.CodeInvalidRequest, message: "invalid request: batches are not supported; send one message per line"}
	default:
		return nil, &rpcError{code: jsonrpc.CodeInvalidRequest, message: "invalid request: a message must be a JSON object"}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, &rpcError{code: jsonrpc.CodeParseError, message: "parse error: " + quoteErr(err)}
	}
	id, hasID := fields["id"]
	var echo json.RawMessage // the id to put in an error reply
	if hasID {
		switch idKind(id) {
		case 's', 'n':
			echo = id
		case '0':
			return nil, &rpcError{code: jsonrpc.CodeInvalidRequest, message: "invalid request: id must not be null (MCP)"}
		default:
			return nil, &rpcError{code: jsonrpc.CodeInvalidRequest, message: "invalid request: id must be a string or a number"}
		}
	}
	if v, ok := fields["jsonrpc"]; !ok || !bytes.Equal(bytes.TrimSpace(v), []byte(`"2.0"`)) {
		return nil, &rpcError{id: echo, code: jsonrpc.CodeInvalidRequest, message: `invalid request: "jsonrpc" must be "2.0"`}
	}
	method, hasMethod := fields["method"]
	if !hasMethod {
		_, hasResult := fields["result"]
		_, hasErr := fields["error"]
		if hasID && hasResult != hasErr {
			// A response to one of our own requests: the SDK matches it.
			msg, err := jsonrpc.DecodeMessage(raw)
			if err != nil {
				return nil, nil
			}
			return &decoded{msg: msg}, nil
		}
		return nil, &rpcError{id: echo, code: jsonrpc.CodeInvalidRequest, message: `invalid request: no "method" (and not a response)`}
	}
	var name string
	if err := json.Unmarshal(method, &name); err != nil {
		return nil, &rpcError{id: echo, code: jsonrpc.CodeInvalidRequest, message: `invalid request: "method" must be a string`}
	}
	params := fields["params"]
	if len(params) > 0 {
		if k := idKind(params); k != '{' && k != '[' && k != '0' {
			return nil, &rpcError{id: echo, code: jsonrpc.CodeInvalidRequest, message: `invalid request: "params" must be an object or an array`}
		}
	}
	if name == "initialize" && idKind(params) == '0' {
		// The SDK would answer it without an error code.
		return nil, &rpcError{id: echo, code: jsonrpc.CodeInvalidParams, message: `invalid params: initialize needs "params"`}
	}
	req := &jsonrpc.Request{Method: name, Params: params}
	if !hasID {
		return &decoded{msg: req}, nil
	}
	return &decoded{msg: req, rawID: compact(id)}, nil
}

// idKind classifies a JSON value by its first byte: 's' string, 'n'
// number, '0' null, '{' object, '[' array, 'b' boolean.
func idKind(v json.RawMessage) byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return 0
	}
	switch c := v[0]; {
	case c == '"':
		return 's'
	case c == '-' || (c >= '0' && c <= '9'):
		return 'n'
	case c == 'n':
		return '0'
	case c == 't' || c == 'f':
		return 'b'
	default:
		return c
	}
}

// compact returns v without insignificant white space (ids are compared
// and echoed in this form; a number's digits are kept exactly).
func compact(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return v
	}
	return b.Bytes()
}

// quoteErr renders a decode error in at most maxQuote bytes.
func quoteErr(err error) string {
	s := err.Error()
	if len(s) > maxQuote {
		s = s[:maxQuote] + "…"
	}
	return s
}

// encodeError renders an error reply.
func encodeError(e *rpcError) []byte {
	id := e.id
	if id == nil {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(e.message)
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, e.code, msg)
}

// errTooLong is the answer to a line over the cap.
func errTooLong(limit int) *rpcError {
	return &rpcError{code: jsonrpc.CodeInvalidRequest, message: fmt.Sprintf("invalid request: message longer than %d bytes was skipped", limit)}
}
