package tools

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestErrorCodes: no error leaves a handler without a JSON-RPC code (the
// SDK would send it as code 0): a second initialize is an invalid
// request, any other uncoded error an internal one, and a coded error
// keeps its code.
func TestErrorCodes(t *testing.T) {
	for _, tt := range []struct {
		method string
		err    error
		want   int64
	}{
		{"initialize", errors.New(`duplicate "initialize" received`), jsonrpc.CodeInvalidRequest},
		{"resources/read", errors.New("disk on fire"), jsonrpc.CodeInternalError},
		{"prompts/get", context.Canceled, jsonrpc.CodeInternalError},
		{"prompts/get", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad"}, jsonrpc.CodeInvalidParams},
		{"tools/call", nil, 0},
	} {
		h := errorCodes(func(context.Context, string, mcp.Request) (mcp.Result, error) { return nil, tt.err })
		_, err := h(context.Background(), tt.method, nil)
		if tt.err == nil {
			if err != nil {
				t.Errorf("%s: %v, want no error", tt.method, err)
			}
			continue
		}
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != tt.want || we.Message != tt.err.Error() {
			t.Errorf("%s(%v) = %#v, want code %d with the same message", tt.method, tt.err, err, tt.want)
		}
	}
}
