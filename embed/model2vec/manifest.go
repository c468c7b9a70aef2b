package model2vec

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// manifestFile records what Install downloaded; Load verifies against it.
const manifestName = "manifest.json"

// ErrChecksum marks a file whose SHA-256 is not the expected one.
var ErrChecksum = errors.New("checksum mismatch")

// How a file's checksum was established, as recorded in the manifest.
const (
	// verifiedPinned: matched the SHA-256 pinned in the alias table.
	verifiedPinned = "pinned"
	// verifiedServer: matched the SHA-256 the server announced
	// (Hugging Face's X-Linked-Etag for LFS files).
	verifiedServer = "server"
	// verifiedRecorded: nothing to compare with at download time; the
	// digest of what arrived is recorded and checked on every Load.
	verifiedRecorded = "recorded"
	// VerifiedLocal: installed from a local copy (a folder or a wheel),
	// whose own digest is SourceSHA256; the file's digest is recorded and
	// checked on every Load.
	VerifiedLocal = "local"
)

// Manifest is the content of manifest.json: what an install put in a
// model folder. Find and FindRepository accept a folder only with it, and
// the loaders check the files against it.
type Manifest struct {
	Alias    string `json:"alias"`
	Repo     string `json:"repo"`
	Revision string `json:"revision"`
	// Source is the mirror's URL, or the local folder or wheel file an
	// install copied from.
	Source string `json:"source"`
	// SourceSHA256 is the digest of a wheel file installed from.
	SourceSHA256 string         `json:"source_sha256,omitempty"`
	Installed    time.Time      `json:"installed"`
	Files        []ManifestFile `json:"files"`
}

// ManifestFile is one installed file.
type ManifestFile struct {
	Name     string `json:"name"`
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256"`
	Verified string `json:"verified"`
}

// readManifest reads dir's manifest; a missing one is an error satisfying
// errors.Is(err, fs.ErrNotExist).
func readManifest(dir string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, fmt.Errorf("model2vec: read manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("model2vec: %s: %w", filepath.Join(dir, manifestName), err)
	}
	return &m, nil
}

// file returns the entry for name, or nil.
func (m *Manifest) file(name string) *ManifestFile {
	if m == nil {
		return nil
	}
	for i := range m.Files {
		if m.Files[i].Name == name {
			return &m.Files[i]
		}
	}
	return nil
}

// check compares the digest of a file with the manifest. Files the
// manifest does not list, or a nil manifest, pass.
func (m *Manifest) check(name, sum string) error {
	f := m.file(name)
	if f == nil || f.SHA256 == "" || f.SHA256 == sum {
		return nil
	}
	return fmt.Errorf("model2vec: %s changed since it was installed (sha256 %s, manifest says %s): %w; reinstall the model", name, sum, f.SHA256, ErrChecksum)
}

// WriteManifest writes dir's manifest.json atomically with mode 0600.
func WriteManifest(dir string, m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("model2vec: encode manifest: %w", err)
	}
	return writeFileAtomic(filepath.Join(dir, manifestName), append(data, '\n'))
}

// writeFileAtomic writes data to a temporary file, syncs it and renames
// it over path.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("model2vec: write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op once renamed
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("model2vec: write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("model2vec: write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("model2vec: write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("model2vec: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("model2vec: write %s: %w", path, err)
	}
	return nil
}
