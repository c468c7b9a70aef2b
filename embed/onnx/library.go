package onnx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// LibraryEnv is the environment variable naming the ONNX Runtime shared
// library.
const LibraryEnv = "ENQUIRE_ORT_LIB"

// LibraryNames are the file names looked for next to the binary.
func LibraryNames(goos string) []string {
	switch goos {
	case "windows":
		return []string{"onnxruntime.dll"}
	case "darwin":
		return []string{"libonnxruntime.dylib"}
	default:
		return []string{"libonnxruntime.so", "libonnxruntime.so.1"}
	}
}

// ErrNoLibrary is returned when the ONNX Runtime library is not found.
var ErrNoLibrary = errors.New("ONNX Runtime library not found")

// FindLibrary locates the ONNX Runtime shared library: the flag value if
// given, else $ENQUIRE_ORT_LIB, else a file named as LibraryNames next to
// the executable exe. It returns the path and where it came from
// ("--ort-lib", "ENQUIRE_ORT_LIB" or "next to the binary").
func FindLibrary(flag, exe string) (path, source string, err error) {
	check := func(p, src string) (string, string, error) {
		st, err := os.Stat(p)
		if err != nil {
			return "", "", fmt.Errorf("%w: %s %s: %v", ErrNoLibrary, src, p, err)
		}
		if !st.Mode().IsRegular() {
			return "", "", fmt.Errorf("%w: %s %s is not a file", ErrNoLibrary, src, p)
		}
		return p, src, nil
	}
	if flag != "" {
		return check(flag, "--ort-lib")
	}
	if env := os.Getenv(LibraryEnv); env != "" {
		return check(env, LibraryEnv)
	}
	if exe != "" {
		for _, name := range LibraryNames(runtime.GOOS) {
			p := filepath.Join(filepath.Dir(exe), name)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, "next to the binary", nil
			}
		}
	}
	return "", "", fmt.Errorf("%w: pass --ort-lib PATH, set %s, or put %s next to the binary", ErrNoLibrary, LibraryEnv, LibraryNames(runtime.GOOS)[0])
}
