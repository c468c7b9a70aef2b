package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// withCanonicalOutput returns t and h rewritten so that the go-sdk does
// not post-process h's structured output, and the handler produces the
// same reply the SDK would have. For a typed tool, the SDK (v1.8,
// toolForErr) encodes the output, then decodes it into a generic value,
// applies the output schema's defaults, validates it and encodes it again
// (applySchema): 10–12 % of a busy HTTP server's CPU. Here the output is
// encoded once and put into canonical form (canonicalJSON: the bytes that
// decode-and-encode gives), and the SDK sees a tool whose Out is any and
// whose handler returns no output, so it leaves the result alone.
//
// What is not done is the validation of the output against its schema:
// the outputs are the handlers' own Go types, whose schemas are derived
// from them, and TestCanonicalOutputMatchesSDK runs every tool's replies
// through the SDK's path (validation included) and compares the bytes.
// ok is false, and the SDK's path must be kept, when the output schema
// has defaults (applySchema would add missing members) or cannot be
// derived.
func withCanonicalOutput[In, Out any](t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) (*mcp.Tool, mcp.ToolHandlerFor[In, any], bool) {
	rt := reflect.TypeFor[Out]()
	var elemZero any // the SDK encodes a nil *T output as the zero T
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
		elemZero = reflect.Zero(rt).Interface()
	}
	tt := *t
	if tt.OutputSchema == nil {
		if reflect.TypeFor[Out]() == reflect.TypeFor[any]() {
			return nil, nil, false // no schema: the SDK encodes the output as it is
		}
		s, err := jsonschema.ForType(rt, &jsonschema.ForOptions{})
		if err != nil || s == nil {
			return nil, nil, false
		}
		tt.OutputSchema = s
	}
	object, ok := plainOutputSchema(tt.OutputSchema)
	if !ok {
		return nil, nil, false
	}
	hh := func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		res, out, err := h(ctx, req, in)
		if err != nil {
			return res, nil, err // the SDK turns it into the error reply
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		if res.InputRequests != nil {
			return res, nil, nil
		}
		var outval any = out
		if elemZero != nil && any(out) == any(*new(Out)) {
			outval = elemZero
		}
		if outval == nil {
			return res, nil, nil
		}
		if err := setStructured(res, outval, object); err != nil {
			return nil, nil, err
		}
		return res, nil, nil
	}
	return &tt, hh, true
}

// setStructured puts outval, encoded as the SDK would, in res: as the
// structured content, and as a text block unless res has content already
// and the output is an object (the SDK's rule).
func setStructured(res *mcp.CallToolResult, outval any, object bool) error {
	b, err := json.Marshal(outval)
	if err != nil {
		return fmt.Errorf("marshaling output: %w", err)
	}
	switch {
	case bytes.Equal(b, []byte("null")) && object:
		b = []byte("{}") // the SDK's nil output for an object schema
	case len(b) > 0 && b[0] == '{': // only objects are re-encoded by the SDK
		if b, err = canonicalJSON(b); err != nil {
			return fmt.Errorf("marshaling output: %w", err)
		}
	}
	res.StructuredContent = json.RawMessage(b)
	if res.Content == nil {
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
	} else if b[0] != '{' {
		res.Content = append(res.Content, &mcp.TextContent{Text: string(b)})
	}
	return nil
}

// plainOutputSchema reports whether schema (a *jsonschema.Schema or its
// JSON) has no "default" key anywhere (a property named "default" counts
// too: a false alarm only keeps the SDK's path), and whether its type is
// "object".
func plainOutputSchema(schema any) (object, ok bool) {
	raw, err := json.Marshal(schema)
	if err != nil {
		return false, false
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return false, false
	}
	if hasKey(v, "default") {
		return false, false
	}
	m, _ := v.(map[string]any)
	return m["type"] == "object", true
}

// hasKey reports whether an object anywhere in v has key.
func hasKey(v any, key string) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if k == key || hasKey(e, key) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasKey(e, key) {
				return true
			}
		}
	}
	return false
}
