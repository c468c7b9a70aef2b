// Package privacy compiles a vault's privacy rules — exclude globs, an
// allow list, the vault's own .enquire/ignore file and a frontmatter
// marker — into one [Rules] value that the vault loader, the index and the
// tools consult, so that a hidden note does not exist for any of them.
package privacy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// DefaultMarkerKey is the frontmatter key that hides a note when true.
const DefaultMarkerKey = "private"

// IgnoreFile is the vault's own rule file, relative to its root.
const IgnoreFile = ".enquire/ignore"

// Config is the user's rules, as given on the command line.
type Config struct {
	// Exclude are doublestar globs over vault-relative paths: a path that
	// matches one is hidden (--exclude-glob).
	Exclude []string
	// Allow, when not empty, is an allow list: a path that matches none is
	// hidden (--read-paths).
	Allow []string
	// MarkerKey is the frontmatter key that hides a note set to true (""
	// turns the marker off).
	MarkerKey string
}

// Rules is a compiled rule set. The zero value hides nothing. Rules are
// immutable and safe for concurrent use.
type Rules struct {
	exclude, allow []glob
	ignore         *ignoreRules
	markerKey      string
	fold           bool // case-insensitive file system: paths compare folded
	hash           string
}

// glob is one validated pattern.
type glob struct {
	pattern string // folded when the rules fold case
}

// Load compiles cfg and the vault's .enquire/ignore (read through the
// vault root, never following a symlink out of it). An invalid pattern or
// ignore line is an error naming it and its position. fold makes matching
// case-insensitive (see CaseInsensitive).
func Load(ctx context.Context, root string, cfg Config, fold bool) (*Rules, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	raw, err := readIgnore(root)
	if err != nil {
		return nil, err
	}
	return Compile(cfg, raw, fold)
}

// Compile compiles cfg and the text of an ignore file (nil: none).
func Compile(cfg Config, ignore []byte, fold bool) (*Rules, error) {
	r := &Rules{markerKey: strings.TrimSpace(cfg.MarkerKey), fold: fold}
	var err error
	if r.exclude, err = compileGlobs("--exclude-glob", cfg.Exclude, fold); err != nil {
		return nil, err
	}
	if r.allow, err = compileGlobs("--read-paths", cfg.Allow, fold); err != nil {
		return nil, err
	}
	if ignore != nil {
		if r.ignore, err = parseIgnore(ignore, fold); err != nil {
			return nil, err
		}
	}
	r.hash = r.computeHash()
	return r, nil
}

func compileGlobs(flag string, patterns []string, fold bool) ([]glob, error) {
	out := make([]glob, 0, len(patterns))
	for i, p := range patterns {
		p = strings.TrimPrefix(strings.TrimSpace(p), "/")
		if p == "" {
			return nil, fmt.Errorf("%s #%d: empty pattern", flag, i+1)
		}
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf(`%s #%d %q: invalid glob: an unclosed "[" or "{", or a trailing "\"`, flag, i+1, p)
		}
		if fold {
			p = strings.ToLower(p)
		}
		out = append(out, glob{pattern: p})
	}
	return out, nil
}

// readIgnore reads root/.enquire/ignore through an os.Root, so a symlink
// cannot lead the read out of the vault; nil when there is none.
func readIgnore(root string) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("privacy rules %s: %w", root, err)
	}
	defer r.Close()
	raw, err := r.ReadFile(IgnoreFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("privacy rules: %s: %w", IgnoreFile, err)
	}
	return raw, nil
}

// Excluded reports whether a vault-relative, slash-separated path is
// hidden by a path rule: it matches an exclude glob or the ignore file, or
// an allow list is set and it matches none of it.
func (r *Rules) Excluded(rel string) bool {
	if r == nil {
		return false
	}
	rel = strings.TrimPrefix(rel, "/")
	if r.fold {
		rel = strings.ToLower(rel)
	}
	if len(r.allow) > 0 && !anyMatch(r.allow, rel) {
		return true
	}
	if anyMatch(r.exclude, rel) {
		return true
	}
	return r.ignore != nil && r.ignore.ignored(rel)
}

func anyMatch(globs []glob, rel string) bool {
	for _, g := range globs {
		if doublestar.MatchUnvalidated(g.pattern, rel) {
			return true
		}
	}
	return false
}

// Private reports whether a note's frontmatter marks it private: the
// marker key (compared case-insensitively) set to true, "true" or "yes".
func (r *Rules) Private(n *vault.Note) bool {
	if r == nil || r.markerKey == "" || n == nil {
		return false
	}
	for k, v := range n.Frontmatter {
		if !strings.EqualFold(strings.TrimSpace(k), r.markerKey) {
			continue
		}
		switch v := v.(type) {
		case bool:
			if v {
				return true
			}
		case string:
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "true", "yes":
				return true
			}
		}
	}
	return false
}

// PathRules reports whether any path rule (glob, allow list or ignore
// line) is set.
func (r *Rules) PathRules() bool {
	return r != nil && (len(r.exclude) > 0 || len(r.allow) > 0 || (r.ignore != nil && len(r.ignore.lines) > 0))
}

// MarkerKey is the frontmatter key that hides a note ("" when off).
func (r *Rules) MarkerKey() string {
	if r == nil {
		return ""
	}
	return r.markerKey
}

// Active reports whether the rules can hide anything.
func (r *Rules) Active() bool { return r.PathRules() || r.MarkerKey() != "" }

// Hash identifies the rule set: it changes whenever what the rules hide
// could change, so the index knows when to purge.
func (r *Rules) Hash() string {
	if r == nil {
		return ""
	}
	return r.hash
}

// Describe summarises the rules for a log line, without naming patterns'
// matches.
func (r *Rules) Describe() string {
	if r == nil {
		return "none"
	}
	parts := []string{}
	if n := len(r.exclude); n > 0 {
		parts = append(parts, fmt.Sprintf("%d exclude globs", n))
	}
	if n := len(r.allow); n > 0 {
		parts = append(parts, fmt.Sprintf("%d allow globs", n))
	}
	if r.ignore != nil {
		parts = append(parts, fmt.Sprintf("%d %s lines", len(r.ignore.lines), IgnoreFile))
	}
	if r.markerKey != "" {
		parts = append(parts, fmt.Sprintf("frontmatter %s: true", r.markerKey))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func (r *Rules) computeHash() string {
	h := sha256.New()
	fmt.Fprintf(h, "v1\x00fold=%v\x00marker=%s\x00", r.fold, r.markerKey)
	for _, g := range r.exclude {
		fmt.Fprintf(h, "x\x00%s\x00", g.pattern)
	}
	for _, g := range r.allow {
		fmt.Fprintf(h, "a\x00%s\x00", g.pattern)
	}
	if r.ignore != nil {
		for _, l := range r.ignore.lines {
			fmt.Fprintf(h, "i\x00%v\x00%v\x00%v\x00%s\x00", l.negate, l.dirOnly, l.anchored, l.pattern)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
