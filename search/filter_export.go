package search

import "github.com/enquire-mcp/enquire-mcp/vault"

// FrontmatterFilter is a validated filter_frontmatter, with the same
// semantics as obsidian_search's: every key must match (AND); an array
// value lists alternatives (OR); a note whose value is a list matches by
// membership; strings compare case-insensitively after trim and NFC;
// numbers compare by value; a note without the key is excluded. The zero
// value matches every note.
type FrontmatterFilter struct {
	f frontmatterFilter
}

// ParseFrontmatterFilter validates a filter_frontmatter argument. Errors
// wrap ErrInvalid and name the offending key.
func ParseFrontmatterFilter(raw map[string]any) (FrontmatterFilter, error) {
	f, err := parseFilter(raw)
	if err != nil {
		return FrontmatterFilter{}, err
	}
	return FrontmatterFilter{f: f}, nil
}

// Empty reports whether the filter has no condition (matches every note).
func (f FrontmatterFilter) Empty() bool { return len(f.f) == 0 }

// Match reports whether a note passes every condition.
func (f FrontmatterFilter) Match(n *vault.Note) bool { return f.f.match(n) }

// NormalizeFolder turns a user folder ("Projects/", "./Projects") into the
// vault-relative prefix searches use; "" means the whole vault. A folder
// that would leave the vault is an error wrapping ErrInvalid.
func NormalizeFolder(folder string) (string, error) { return normalizeFolder(folder) }

// InFolder reports whether a vault-relative path lies under a folder
// returned by NormalizeFolder (case-insensitive; "" matches everything).
func InFolder(p, folder string) bool { return inFolder(p, folder) }
