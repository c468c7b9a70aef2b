package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReplySizeBoundIsAnUpperBound: the bound that spares encoding a
// reply is never below its encoded size, whatever the text escapes to,
// and falls back to the exact size for shapes it does not model.
func TestReplySizeBoundIsAnUpperBound(t *testing.T) {
	worst := strings.Repeat("\x01<>&\"\\\u2028", 50)
	for _, tc := range []struct {
		name  string
		r     *mcp.CallToolResult
		exact bool // the bound must equal replySize
	}{
		{name: "empty", r: &mcp.CallToolResult{}},
		{name: "text", r: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "plain words"}}}},
		{name: "escapes", r: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: worst}, &mcp.TextContent{Text: worst}}}},
		{name: "structured", r: &mcp.CallToolResult{
			StructuredContent: json.RawMessage(`{"hits":[{"path":"a<b>.md","snippet":"` + strings.Repeat(`\u0001&`, 40) + `"}]}`),
			Content:           []mcp.Content{&mcp.TextContent{Text: `{"hits":[{"path":"a<b>.md"}]}`}}}},
		{name: "error", r: &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: worst}}}},
		{name: "meta", r: &mcp.CallToolResult{Meta: mcp.Meta{"k": worst}}, exact: true},
		{name: "image", r: &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte(worst), MIMEType: "image/png"}}}, exact: true},
		{name: "structured value", r: &mcp.CallToolResult{StructuredContent: map[string]string{"k": worst}}, exact: true},
	} {
		size, bound := replySize(tc.r), replySizeBound(tc.r)
		if size <= 0 || bound < size || (tc.exact && bound != size) {
			t.Errorf("%s: size %d, bound %d (exact %v)", tc.name, size, bound, tc.exact)
		}
	}
}
