package index

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/ncruces/go-sqlite3"
)

// metaContent is the meta key of how the vault is indexed (which files,
// and what of them, are read), kept as the caller's JSON. It lives in the
// index rather than in the vault, which the server does not write to.
const metaContent = "content"

// Content is how the vault is indexed, as kept by KeepContent.
type Content struct {
	// Value is the caller's text ("" when none is kept: an index made
	// before content settings were kept, or a new one).
	Value string
	// PDFs is the index's own PDF setting (Settings.PDFs): what a missing
	// Value falls back to.
	PDFs bool
}

// ReadContent reads the kept content settings of the index file at path,
// read-only. A missing file is an error wrapping os.ErrNotExist.
func ReadContent(ctx context.Context, path string) (Content, error) {
	if _, err := os.Stat(path); err != nil {
		return Content{}, fmt.Errorf("index %s: %w", path, err)
	}
	c, err := openReadOnly(ctx, path)
	if err != nil {
		return Content{}, err
	}
	defer c.Close()
	var out Content
	if out.Value, err = metaValue(c, metaContent); err != nil {
		return Content{}, fmt.Errorf("index %s: read the content settings: %w", path, describe(err))
	}
	raw, err := metaValue(c, "settings")
	if err != nil {
		return Content{}, fmt.Errorf("index %s: read the settings: %w", path, err)
	}
	if raw != "" {
		var s Settings
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			return Content{}, fmt.Errorf("index %s: settings: %w", path, err)
		}
		out.PDFs = s.PDFs
	}
	return out, nil
}

// Content returns the kept content settings as written by KeepContent
// ("" when none are kept).
func (ix *Index) Content(ctx context.Context) (string, error) {
	v, err := ix.readMeta(ctx, metaContent)
	if err != nil {
		return "", fmt.Errorf("index %s: read the content settings: %w", ix.path, err)
	}
	return v, nil
}

// KeepContent keeps the content settings (opaque text, JSON by
// convention) in the index, in one transaction. A rebuild keeps them
// only when the caller keeps them again.
func (ix *Index) KeepContent(value string) error {
	err := ix.tx(func(c *sqlite3.Conn) error {
		return exec1(c, `INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`, metaContent, value)
	})
	if err != nil {
		return fmt.Errorf("index %s: keep the content settings: %w", ix.path, err)
	}
	return nil
}
