package tools

import "github.com/google/jsonschema-go/jsonschema"

// Schemas use one "type" per schema: clients that map JSON Schema onto a
// single-type dialect (Gemini function declarations, the MCP Inspector's
// portability check) reject a "type" array. A value of several types is
// an anyOf of single-type schemas, which accepts exactly the same inputs.

// anyOfTypes is a schema accepting a value of any of the given types.
func anyOfTypes(types ...string) *jsonschema.Schema {
	s := &jsonschema.Schema{}
	for _, t := range types {
		s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Type: t})
	}
	return s
}

// setAnyOfTypes turns property p into an anyOf of the given types,
// keeping its description.
func setAnyOfTypes(p *jsonschema.Schema, types ...string) {
	p.Type, p.Types, p.AnyOf = "", nil, anyOfTypes(types...).AnyOf
}

// frontmatterFilterValue is the schema of one filter_frontmatter value: a
// string, number or boolean, or an array of those (any of them matches).
func frontmatterFilterValue() *jsonschema.Schema {
	s := anyOfTypes("string", "number", "boolean")
	s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Type: "array", Items: anyOfTypes("string", "number", "boolean")})
	return s
}
