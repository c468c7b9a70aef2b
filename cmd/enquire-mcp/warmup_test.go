package main

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestReadyOnlyAfterWarmUp polls /ready of the real binary from its start:
// the first 200 comes only after the warm-up's log line (written before
// the server is attached), and the warm-up made its calls without
// errors. With --warmup 0 there is no warm-up at all.
func TestReadyOnlyAfterWarmUp(t *testing.T) {
	bin := buildBinary(t)
	warmed := regexp.MustCompile(`msg="warmed up" calls=(\d+) errors=(\d+)`)
	for _, tt := range []struct {
		warmup string
		want   bool
	}{{"64", true}, {"0", false}} {
		t.Run("warmup="+tt.warmup, func(t *testing.T) {
			addr := freeAddr(t)
			cmd := exec.Command(bin, "serve-http", "--vault", fixtureVault, "--addr", addr, "--warmup", tt.warmup)
			cmd.Env = append(os.Environ(), tokenEnv+"="+e2eToken)
			var log lockedBuffer
			cmd.Stderr = &log
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			waitReady(t, "http://"+addr+"/ready", &log)
			m := warmed.FindStringSubmatch(log.String()) // read at the first 200
			if !tt.want {
				if m != nil {
					t.Fatalf("warm-up ran with --warmup 0: %s", m[0])
				}
				return
			}
			if m == nil {
				t.Fatalf("/ready said 200 before the warm-up finished:\n%s", log.String())
			}
			if calls, _ := strconv.Atoi(m[1]); calls == 0 || m[2] != "0" {
				t.Fatalf("warm-up: %s", m[0])
			}
		})
	}
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitReady polls url until it answers 200; any status other than 200 or
// 503 (loading), or no 200 within a minute, fails the test.
func waitReady(t *testing.T, url string, log *lockedBuffer) {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		resp, err := c.Get(url)
		if err != nil {
			continue // not listening yet
		}
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			return
		case http.StatusServiceUnavailable:
		default:
			t.Fatalf("/ready answered %d:\n%s", resp.StatusCode, log.String())
		}
	}
	t.Fatalf("no 200 from /ready within a minute:\n%s", log.String())
}
