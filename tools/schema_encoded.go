package tools

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// withEncodedInput returns t with its input schema encoded once as JSON.
// The go-sdk (v1.8) re-encodes a tool's input schema on every tools/call
// that arrives over Streamable HTTP with protocol version 2026-07-28 or
// later, to look for x-mcp-header annotations; a *jsonschema.Schema costs
// a reflective walk each time (about 4 % of a saturated server's CPU),
// pre-encoded bytes only a copy. The SDK decodes the bytes into the same
// schema when the tool is added, and tools/list sends the same bytes.
func withEncodedInput(t *mcp.Tool) *mcp.Tool {
	s, ok := t.InputSchema.(*jsonschema.Schema)
	if !ok || s == nil {
		return t
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool %s: encode the input schema: %v", t.Name, err)) // a programming error
	}
	c := *t
	c.InputSchema = json.RawMessage(raw)
	return &c
}
