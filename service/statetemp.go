package service

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// staleStateTempAge is the age past which a temporary engine state file
// is no save in progress (a save writes it continuously: 222 MB in a few
// seconds at 107,000 notes) but the leftover of a process killed while
// saving, such as a server stopped by its client's SIGKILL 10 seconds
// after it closed stdin.
const staleStateTempAge = time.Minute

// cleanStateTemps removes the temporary files that interrupted saves of
// the state at path left next to it (path.*.tmp, last written before
// now minus staleStateTempAge), and returns their names. Recent ones may
// belong to another process's save of the same vault and are kept.
func cleanStateTemps(path string, now time.Time) ([]string, error) {
	dir, prefix := filepath.Dir(path), filepath.Base(path)+"."
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ".tmp") {
			continue
		}
		info, err := e.Info()
		if err != nil || info.ModTime().After(now.Add(-staleStateTempAge)) {
			continue
		}
		m := filepath.Join(dir, name)
		if err := os.Remove(m); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, m)
	}
	return removed, errors.Join(errs...)
}

// tidyStateTemps is cleanStateTemps with its outcome logged.
func (l *Vault) tidyStateTemps(path string) {
	removed, err := cleanStateTemps(path, time.Now())
	if len(removed) > 0 {
		l.logger.Info("removed engine state files left by interrupted saves", "files", removed)
	}
	if err != nil {
		l.logger.Warn("engine state temporary files not all removed", "err", err)
	}
}
