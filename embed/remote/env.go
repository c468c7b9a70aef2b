package remote

import (
	"fmt"
	"os"
	"strings"
)

// Provider names a remote embedding API.
type Provider string

// Providers.
const (
	ProviderOllama Provider = "ollama"
	ProviderOpenAI Provider = "openai"
)

// Environment variables read by FromEnv, in order of precedence per
// setting (the first non-empty wins, after a value set by a flag).
const (
	EnvOllamaURL     = "ENQUIRE_OLLAMA_URL"
	EnvOllamaHost    = "OLLAMA_HOST"
	EnvOpenAIBaseURL = "ENQUIRE_OPENAI_BASE_URL"
	EnvOpenAIBase    = "OPENAI_BASE_URL"
	EnvOpenAIKey     = "ENQUIRE_OPENAI_API_KEY"
	EnvOpenAIKeyStd  = "OPENAI_API_KEY"
)

// FromEnv completes flags, a Config built from command-line flags, from
// the environment. Precedence for each setting is: the flag (a non-empty
// field in flags) > the ENQUIRE_* variable > the standard variable.
//
//   - ollama: BaseURL from ENQUIRE_OLLAMA_URL, then OLLAMA_HOST.
//   - openai: BaseURL from ENQUIRE_OPENAI_BASE_URL, then OPENAI_BASE_URL;
//     APIKey from ENQUIRE_OPENAI_API_KEY, then OPENAI_API_KEY.
//
// Unset fields keep their zero value, so the New functions' defaults
// apply. getenv looks variables up; nil means os.Getenv.
func FromEnv(p Provider, flags Config, getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	first := func(cur string, names ...string) string {
		if strings.TrimSpace(cur) != "" {
			return cur
		}
		for _, n := range names {
			if v := strings.TrimSpace(getenv(n)); v != "" {
				return v
			}
		}
		return ""
	}
	switch p {
	case ProviderOllama:
		flags.BaseURL = first(flags.BaseURL, EnvOllamaURL, EnvOllamaHost)
	case ProviderOpenAI:
		flags.BaseURL = first(flags.BaseURL, EnvOpenAIBaseURL, EnvOpenAIBase)
		flags.APIKey = first(flags.APIKey, EnvOpenAIKey, EnvOpenAIKeyStd)
	default:
		return flags, fmt.Errorf("remote: unknown provider %q (want %q or %q)", p, ProviderOllama, ProviderOpenAI)
	}
	return flags, nil
}
