package models

import (
	"fmt"
	"os"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/embed/model2vec"
)

// Check reports, without loading anything, whether alias names a model
// Open knows how to open: a command checks its flags before it reads a
// vault. The error wraps ErrUnknown. A known model can still fail to
// open (not installed, server down); Open says so.
func Check(alias string) error {
	provider, name, _ := strings.Cut(alias, ":")
	switch {
	case alias == "" || alias == DefaultAlias || alias == VaultAlias:
	case (provider == "ollama" || provider == "openai") && name != "":
	case isORT(alias):
	default:
		if info, err := os.Stat(alias); err == nil && info.IsDir() {
			return nil
		}
		for _, a := range model2vec.Aliases() {
			if strings.EqualFold(a.Name, alias) {
				return nil
			}
		}
		return unknownModel(alias)
	}
	return nil
}

// unknownModel is the error for an alias no provider recognises.
func unknownModel(alias string) error {
	var names []string
	for _, a := range model2vec.Aliases() {
		names = append(names, a.Name)
	}
	return wrap(alias, fmt.Errorf(`%w: use "builtin", one of %s, a model folder, "ollama:MODEL" or "openai:MODEL"`, ErrUnknown, strings.Join(names, ", ")))
}
