package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// errLocked is returned by tryLock when another open file holds the lock.
var errLocked = errors.New("locked")

// lockPoll is how often a waiting sync retries the lock.
const lockPoll = 100 * time.Millisecond

// SetLockWait sets fn to be called once when a sync has to wait for
// another one (another `index` run, a server's sync) holding the lock
// file; fn gets that file's path.
func (ix *Index) SetLockWait(fn func(lockFile string)) { ix.lockWait = fn }

// lockSync takes the index's sync lock, a lock on FILE.lock that orders
// syncs across processes (and within one: each call opens the file
// anew). Two syncs computing their changes from the same stored state
// would both insert the same chunks; the second waits instead. notify is
// called once if it has to wait.
func (ix *Index) lockSync(ctx context.Context, notify func(string)) (unlock func(), err error) {
	name := ix.path + ".lock"
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("index lock %s: %w", name, err)
	}
	waited := false
	for {
		err := tryLock(f)
		if err == nil {
			return func() {
				// A new generation tells a sync that read the stored rows
				// before taking the lock that they may be stale.
				f.Truncate(0)
				f.WriteAt([]byte(strconv.FormatInt(time.Now().UnixNano(), 10)), 0)
				unlockFile(f)
				f.Close()
			}, nil
		}
		if !errors.Is(err, errLocked) {
			f.Close()
			return nil, fmt.Errorf("index lock %s: %w", name, err)
		}
		if !waited && notify != nil {
			notify(name)
		}
		waited = true
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("another index run holds %s: %w", name, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}

// syncGeneration is the content of the lock file: it changes with every
// sync, so rows read before the lock can be checked for staleness.
func (ix *Index) syncGeneration() string {
	b, _ := os.ReadFile(ix.path + ".lock")
	return string(b)
}
