package tokenizer

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// parseNormalizer reads a "normalizer" object, flattening Sequences.
// Unknown types fail with ErrUnsupported rather than being skipped, since
// a skipped step would silently change every vector.
func parseNormalizer(raw json.RawMessage) ([]normalizer, error) {
	return parseSteps(raw, "normalizers", normalizerStep)
}

// parseSteps reads a tokenizer component that is either one step or a
// "Sequence" listing steps under key (nested Sequences flattened); step
// parses a single step of the given type.
func parseSteps[T any](raw json.RawMessage, key string, step func(typ string, raw json.RawMessage) ([]T, error)) ([]T, error) {
	if isNull(raw) {
		return nil, nil
	}
	var head typed
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, err
	}
	if head.Type != "Sequence" {
		return step(head.Type, raw)
	}
	var seq map[string]json.RawMessage
	if err := json.Unmarshal(raw, &seq); err != nil {
		return nil, fmt.Errorf("Sequence: %w", err)
	}
	var items []json.RawMessage
	if list := seq[key]; list != nil {
		if err := json.Unmarshal(list, &items); err != nil {
			return nil, fmt.Errorf("Sequence: %w", err)
		}
	}
	var out []T
	for _, r := range items {
		ts, err := parseSteps(r, key, step)
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	return out, nil
}

// normalizerStep reads one normalizer of type typ.
func normalizerStep(typ string, raw json.RawMessage) ([]normalizer, error) {
	switch typ {
	case "BertNormalizer":
		var b struct {
			CleanText          *bool `json:"clean_text"`
			HandleChineseChars *bool `json:"handle_chinese_chars"`
			StripAccents       *bool `json:"strip_accents"`
			Lowercase          *bool `json:"lowercase"`
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("BertNormalizer: %w", err)
		}
		n := bertNormalizer{cleanText: orTrue(b.CleanText), chinese: orTrue(b.HandleChineseChars), lowercase: orTrue(b.Lowercase)}
		n.stripAccents = n.lowercase // strip_accents: null follows lowercase
		if b.StripAccents != nil {
			n.stripAccents = *b.StripAccents
		}
		return []normalizer{n}, nil
	case "Lowercase":
		return []normalizer{lowercaseNormalizer{}}, nil
	case "NFC":
		return []normalizer{unicodeNormalizer{norm.NFC}}, nil
	case "NFD":
		return []normalizer{unicodeNormalizer{norm.NFD}}, nil
	case "NFKC":
		return []normalizer{unicodeNormalizer{norm.NFKC}}, nil
	case "NFKD":
		return []normalizer{unicodeNormalizer{norm.NFKD}}, nil
	case "StripAccents":
		return []normalizer{stripAccentsNormalizer{}}, nil
	case "Strip":
		var s struct {
			Left  bool `json:"strip_left"`
			Right bool `json:"strip_right"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("Strip: %w", err)
		}
		return []normalizer{stripNormalizer{left: s.Left, right: s.Right}}, nil
	case "Prepend":
		var p struct {
			Prepend string `json:"prepend"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("Prepend: %w", err)
		}
		return []normalizer{prependNormalizer{p.Prepend}}, nil
	case "Replace":
		n, err := parseReplace(raw)
		if err != nil {
			return nil, err
		}
		return []normalizer{n}, nil
	case "Precompiled":
		var p struct {
			Charsmap *string `json:"precompiled_charsmap"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("Precompiled: %w", err)
		}
		if p.Charsmap == nil || *p.Charsmap == "" {
			return nil, nil // an empty charsmap normalises nothing
		}
		n, err := newPrecompiled(*p.Charsmap)
		if err != nil {
			return nil, fmt.Errorf("Precompiled: %w", err)
		}
		return []normalizer{n}, nil
	default:
		return nil, fmt.Errorf("%w: normalizer %q", ErrUnsupported, typ)
	}
}

// orTrue reads an optional flag that defaults to true.
func orTrue(b *bool) bool { return b == nil || *b }

// parseReplace reads a "Replace" normalizer.
func parseReplace(raw json.RawMessage) (normalizer, error) {
	var r struct {
		Pattern struct {
			String *string `json:"String"`
			Regex  *string `json:"Regex"`
		} `json:"pattern"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("Replace: %w", err)
	}
	switch {
	case r.Pattern.String != nil:
		if *r.Pattern.String == "" {
			return nil, fmt.Errorf("%w: Replace with an empty pattern", ErrUnsupported)
		}
		return replaceStringNormalizer{pattern: *r.Pattern.String, content: r.Content}, nil
	case r.Pattern.Regex != nil:
		switch *r.Pattern.Regex {
		case `\s+`:
			return spaceRunNormalizer{unicodeSpace: true, min: 1, content: r.Content}, nil
		case ` +`:
			return spaceRunNormalizer{min: 1, content: r.Content}, nil
		case ` {2,}`:
			return spaceRunNormalizer{min: 2, content: r.Content}, nil
		}
		expr, err := onigToRE2(*r.Pattern.Regex)
		if err != nil {
			return nil, err
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("%w: Replace regex %q: %v", ErrUnsupported, *r.Pattern.Regex, err)
		}
		return regexpNormalizer{re: re, content: []byte(r.Content)}, nil
	default:
		return nil, fmt.Errorf("Replace: pattern is neither String nor Regex")
	}
}

// onigClass widens Oniguruma's Unicode-aware shorthand classes, which RE2
// reads as ASCII-only. The result can stand inside or outside brackets.
func onigClass(c byte) (string, bool) {
	switch c {
	case 's':
		return `\t\n\v\f\r \x{85}\p{Z}`, true
	case 'd':
		return `\p{Nd}`, true
	case 'w':
		return `\p{L}\p{M}\p{Nd}\p{Pc}`, true
	}
	return "", false
}

// onigToRE2 rewrites \s, \d and \w (and their negations outside brackets)
// of an Oniguruma pattern for Go's regexp.
func onigToRE2(pat string) (string, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == '\\' && i+1 < len(pat):
			n := pat[i+1]
			lower := n | 0x20
			cls, ok := onigClass(lower)
			if !ok {
				b.WriteByte(c)
				b.WriteByte(n)
				i++
				continue
			}
			negated := n != lower
			switch {
			case inClass && negated:
				return "", fmt.Errorf("%w: regex %q negates \\%c inside brackets", ErrUnsupported, pat, n)
			case inClass:
				b.WriteString(cls)
			case negated:
				b.WriteString("[^" + cls + "]")
			default:
				b.WriteString("[" + cls + "]")
			}
			i++
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			if i+1 < len(pat) && pat[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(pat) && pat[i+1] == ']' { // a literal ] first in a class
				b.WriteByte(']')
				i++
			}
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// fuseReplacements merges runs of single-character literal Replace steps
// into one pass when that cannot change the result: no later pattern may
// occur in an earlier replacement's content.
func fuseReplacements(ns []normalizer) []normalizer {
	var out []normalizer
	for i := 0; i < len(ns); {
		j := i
		var run []replaceStringNormalizer
		for j < len(ns) {
			r, ok := ns[j].(replaceStringNormalizer)
			if !ok || utf8.RuneCountInString(r.pattern) != 1 || conflicts(run, r.pattern) {
				break
			}
			run = append(run, r)
			j++
		}
		if len(run) < 2 {
			out = append(out, ns[i])
			i++
			continue
		}
		// conflicts keeps a pattern from repeating within a run, so each
		// character is set once.
		m := &runeMapNormalizer{other: map[rune]string{}}
		for _, r := range run {
			c, _ := utf8.DecodeRuneInString(r.pattern)
			if c < utf8.RuneSelf {
				m.ascii[c], m.isSet[c] = r.content, true
			} else {
				m.other[c] = r.content
			}
		}
		out = append(out, m)
		i = j
	}
	return out
}

// conflicts reports whether pattern occurs in the content of a replacement
// already in run, or is already a pattern of it.
func conflicts(run []replaceStringNormalizer, pattern string) bool {
	for _, r := range run {
		if r.pattern == pattern || strings.Contains(r.content, pattern) {
			return true
		}
	}
	return false
}

// parsePreTokenizer reads a "pre_tokenizer" object, flattening Sequences.
func parsePreTokenizer(raw json.RawMessage) ([]preTokenizer, error) {
	return parseSteps(raw, "pretokenizers", preTokenizerStep)
}

// preTokenizerStep reads one pre-tokenizer of type typ.
func preTokenizerStep(typ string, raw json.RawMessage) ([]preTokenizer, error) {
	switch typ {
	case "BertPreTokenizer":
		return []preTokenizer{bertPreTokenizer{}}, nil
	case "Whitespace":
		return []preTokenizer{whitespacePreTokenizer{}}, nil
	case "WhitespaceSplit":
		return []preTokenizer{funcPreTokenizer{pred: isSpace, how: removed}}, nil
	case "Punctuation":
		var p struct {
			Behavior string `json:"behavior"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("Punctuation: %w", err)
		}
		how, err := parseBehavior(p.Behavior, isolated)
		if err != nil {
			return nil, err
		}
		return []preTokenizer{funcPreTokenizer{pred: isPunct, how: how}}, nil
	case "Digits":
		var d struct {
			Individual bool `json:"individual_digits"`
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			return nil, fmt.Errorf("Digits: %w", err)
		}
		how := contiguous
		if d.Individual {
			how = isolated
		}
		return []preTokenizer{funcPreTokenizer{pred: isNumeric, how: how}}, nil
	case "Metaspace":
		return parseMetaspace(raw)
	default:
		return nil, fmt.Errorf("%w: pre-tokenizer %q", ErrUnsupported, typ)
	}
}

// parseBehavior reads a SplitDelimiterBehavior name.
func parseBehavior(name string, def splitBehavior) (splitBehavior, error) {
	switch name {
	case "":
		return def, nil
	case "Removed":
		return removed, nil
	case "Isolated":
		return isolated, nil
	case "MergedWithPrevious":
		return mergedWithPrevious, nil
	case "MergedWithNext":
		return mergedWithNext, nil
	case "Contiguous":
		return contiguous, nil
	}
	return 0, fmt.Errorf("%w: split behavior %q", ErrUnsupported, name)
}

// parseMetaspace reads a "Metaspace" pre-tokenizer, old and new style.
func parseMetaspace(raw json.RawMessage) ([]preTokenizer, error) {
	var m struct {
		Replacement    string `json:"replacement"`
		PrependScheme  string `json:"prepend_scheme"`
		AddPrefixSpace *bool  `json:"add_prefix_space"`
		Split          *bool  `json:"split"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("Metaspace: %w", err)
	}
	if m.Replacement == "" {
		m.Replacement = "▁"
	}
	if utf8.RuneCountInString(m.Replacement) != 1 {
		return nil, fmt.Errorf("Metaspace: replacement %q is not one character", m.Replacement)
	}
	p := metaspacePreTokenizer{replacement: []byte(m.Replacement), splitOnRep: orTrue(m.Split)}
	switch m.PrependScheme {
	case "always":
		p.prepend = prependAlways
	case "first":
		p.prepend = prependFirst
	case "never":
		p.prepend = prependNever
	case "":
		if m.AddPrefixSpace != nil && !*m.AddPrefixSpace {
			p.prepend = prependNever
		}
	default:
		return nil, fmt.Errorf("%w: Metaspace prepend_scheme %q", ErrUnsupported, m.PrependScheme)
	}
	return []preTokenizer{p}, nil
}
