package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// canonicalJSON rewrites data (valid JSON, as json.Marshal writes it) the
// way the go-sdk (v1.8) rewrites a tool's structured output: it decodes
// the output into a generic value (maps, float64s, strings) and encodes
// that again with encoding/json, which sorts every object's keys (by
// byte order; of duplicate keys the last wins), writes numbers as
// float64 and re-escapes strings. The result is the same bytes without
// building the generic value: members are reordered in place, and only
// strings with escapes or unusual runes, and numbers that are not small
// integers, are decoded and encoded again.
func canonicalJSON(data []byte) ([]byte, error) {
	c := canonicalizer{in: data, out: make([]byte, 0, len(data)+len(data)/16)}
	c.space()
	if err := c.value(); err != nil {
		return nil, err
	}
	if c.space(); c.pos != len(c.in) {
		return nil, errors.New("canonical JSON: trailing data")
	}
	return c.out, nil
}

type canonicalizer struct {
	in  []byte
	pos int
	out []byte
	// tmp holds an object's members while they are reordered.
	tmp []byte
}

var errCanonicalSyntax = errors.New("canonical JSON: syntax error")

func (c *canonicalizer) space() {
	for c.pos < len(c.in) {
		switch c.in[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

func (c *canonicalizer) value() error {
	if c.pos >= len(c.in) {
		return errCanonicalSyntax
	}
	switch b := c.in[c.pos]; {
	case b == '{':
		return c.object()
	case b == '[':
		return c.array()
	case b == '"':
		return c.str()
	case b == 't':
		return c.literal("true")
	case b == 'f':
		return c.literal("false")
	case b == 'n':
		return c.literal("null")
	case b == '-' || (b >= '0' && b <= '9'):
		return c.number()
	}
	return errCanonicalSyntax
}

func (c *canonicalizer) literal(word string) error {
	if !bytes.HasPrefix(c.in[c.pos:], []byte(word)) {
		return errCanonicalSyntax
	}
	c.out = append(c.out, word...)
	c.pos += len(word)
	return nil
}

func (c *canonicalizer) array() error {
	c.out = append(c.out, '[')
	c.pos++
	c.space()
	if c.pos < len(c.in) && c.in[c.pos] == ']' {
		c.pos++
		c.out = append(c.out, ']')
		return nil
	}
	for {
		c.space()
		if err := c.value(); err != nil {
			return err
		}
		c.space()
		if c.pos >= len(c.in) {
			return errCanonicalSyntax
		}
		c.pos++
		switch c.in[c.pos-1] {
		case ',':
			c.out = append(c.out, ',')
		case ']':
			c.out = append(c.out, ']')
			return nil
		default:
			return errCanonicalSyntax
		}
	}
}

// member is one object member written to out: its decoded key, and
// where its canonical "key":value bytes start and end.
type member struct {
	key        string
	start, end int
}

func (c *canonicalizer) object() error {
	c.out = append(c.out, '{')
	c.pos++
	base := len(c.out)
	var ms []member
	c.space()
	if c.pos < len(c.in) && c.in[c.pos] == '}' {
		c.pos++
		c.out = append(c.out, '}')
		return nil
	}
	for {
		c.space()
		start := len(c.out)
		if c.pos >= len(c.in) || c.in[c.pos] != '"' {
			return errCanonicalSyntax
		}
		if err := c.str(); err != nil {
			return err
		}
		key, err := decodeKey(c.out[start:])
		if err != nil {
			return err
		}
		c.space()
		if c.pos >= len(c.in) || c.in[c.pos] != ':' {
			return errCanonicalSyntax
		}
		c.pos++
		c.out = append(c.out, ':')
		c.space()
		if err := c.value(); err != nil {
			return err
		}
		ms = append(ms, member{key, start, len(c.out)})
		c.space()
		if c.pos >= len(c.in) {
			return errCanonicalSyntax
		}
		c.pos++
		if c.in[c.pos-1] == '}' {
			break
		}
		if c.in[c.pos-1] != ',' {
			return errCanonicalSyntax
		}
		c.out = append(c.out, ',')
	}
	c.reorder(base, ms)
	c.out = append(c.out, '}')
	return nil
}

// reorder rewrites the comma-separated members written from base in
// key order, keeping the last of duplicate keys.
func (c *canonicalizer) reorder(base int, ms []member) {
	if slices.IsSortedFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) }) && !hasDuplicateKeys(ms) {
		return
	}
	c.tmp = append(c.tmp[:0], c.out[base:]...)
	for i := range ms {
		ms[i].start -= base
		ms[i].end -= base
	}
	slices.SortStableFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
	c.out = c.out[:base]
	for i, m := range ms {
		if i+1 < len(ms) && ms[i+1].key == m.key {
			continue // a later duplicate wins
		}
		if len(c.out) > base {
			c.out = append(c.out, ',')
		}
		c.out = append(c.out, c.tmp[m.start:m.end]...)
	}
}

// decodeKey is the value of a canonical quoted key.
func decodeKey(quoted []byte) (string, error) {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var key string
	err := json.Unmarshal(quoted, &key)
	return key, err
}

func hasDuplicateKeys(sorted []member) bool {
	for i := 1; i < len(sorted); i++ {
		if sorted[i].key == sorted[i-1].key {
			return true
		}
	}
	return false
}

// str copies a string as encoding/json would encode its decoded value:
// verbatim when it has no escape and no rune encoding/json writes
// differently (U+2028, U+2029, invalid UTF-8), else decoded and encoded.
func (c *canonicalizer) str() error {
	start := c.pos
	simple := true
	i := c.pos + 1
	for ; i < len(c.in); i++ {
		b := c.in[i]
		if b == '"' {
			break
		}
		if b == '\\' {
			simple = false
			i++
			continue
		}
		if b < 0x20 || b == '<' || b == '>' || b == '&' || b >= 0x80 {
			simple = false
		}
	}
	if i >= len(c.in) {
		return errCanonicalSyntax
	}
	raw := c.in[start : i+1]
	c.pos = i + 1
	if simple || plainUTF8(raw) {
		c.out = append(c.out, raw...)
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	enc, err := json.Marshal(s)
	if err != nil {
		return err
	}
	c.out = append(c.out, enc...)
	return nil
}

// plainUTF8 reports whether a quoted string without escapes is valid
// UTF-8 with no byte encoding/json escapes (control characters, <, >, &,
// U+2028, U+2029): encoding/json writes its value back unchanged.
func plainUTF8(raw []byte) bool {
	body := raw[1 : len(raw)-1]
	for _, b := range body {
		if b < 0x20 || b == '\\' || b == '<' || b == '>' || b == '&' {
			return false
		}
	}
	return utf8.Valid(body) && !bytes.Contains(body, []byte("\u2028")) && !bytes.Contains(body, []byte("\u2029"))
}

// number writes a number as encoding/json writes the float64 it decodes
// to: integers of up to 15 digits are that already.
func (c *canonicalizer) number() error {
	start := c.pos
	integer := true
	for c.pos < len(c.in) {
		b := c.in[c.pos]
		if b == '.' || b == 'e' || b == 'E' || b == '+' {
			integer = false
		} else if !(b == '-' || (b >= '0' && b <= '9')) {
			break
		}
		c.pos++
	}
	lit := c.in[start:c.pos]
	digits := len(lit)
	if len(lit) > 0 && lit[0] == '-' {
		digits--
	}
	if integer && digits >= 1 && digits <= 15 {
		c.out = append(c.out, lit...)
		return nil
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return err
	}
	c.out = appendFloat64(c.out, f)
	return nil
}

// appendFloat64 is encoding/json's float64 encoding (ES6 number
// formatting: exponent only below 1e-6 or from 1e21, "e-07" as "e-7").
func appendFloat64(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
