package vault

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"
)

// IsTempName reports whether a file name is one of the temporary files
// of our atomic writes (TempPrefix, hex or decimal digits, TempSuffix):
// the only files CleanTemp may remove.
func IsTempName(name string) bool {
	mid, ok := strings.CutPrefix(name, TempPrefix)
	if !ok {
		return false
	}
	mid, ok = strings.CutSuffix(mid, TempSuffix)
	if !ok || mid == "" || len(mid) > 32 {
		return false
	}
	for _, r := range mid {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// CleanTemp removes the temporary files our writes left behind (a server
// killed mid-write): regular files named as IsTempName says, last
// modified before cutoff (a younger one may belong to a write in
// progress, in this process or another), in the folders a write can
// target (not dot-folders, node_modules or through symlinks). It returns
// the vault-relative paths removed; errors on single files are collected
// and do not stop the sweep.
func (f *FS) CleanTemp(ctx context.Context, cutoff time.Time) (removed []string, err error) {
	var errs []string
	dirs := []string{""}
	for len(dirs) > 0 {
		if err := ctx.Err(); err != nil {
			return removed, fmt.Errorf("clean temporary files: %w", err)
		}
		dir := dirs[len(dirs)-1]
		dirs = dirs[:len(dirs)-1]
		entries, err := f.ReadDir(dir)
		if err != nil {
			errs = append(errs, err.Error())
		}
		for _, e := range entries {
			rel := path.Join(dir, e.Name())
			switch {
			case e.IsDir() && !Skipped(e.Name()):
				dirs = append(dirs, rel)
			case e.Type().IsRegular() && IsTempName(e.Name()):
				info, err := e.Info()
				if err != nil || !info.ModTime().Before(cutoff) {
					continue
				}
				if err := f.Remove(rel); err != nil {
					errs = append(errs, err.Error())
					continue
				}
				removed = append(removed, rel)
			}
		}
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("clean temporary files: %s", strings.Join(errs, "; "))
	}
	return removed, nil
}
