// Command enquire-mcp serves fast, precise search over an Obsidian vault to
// AI assistants over MCP, and offers the same search on the command line.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/enquire-mcp/enquire-mcp/pdf"
)

const usage = `enquire-mcp %s: search an Obsidian vault from AI assistants (MCP) and the shell.

Usage:
  enquire-mcp serve  --vault PATH [flags]         serve MCP over stdio
  enquire-mcp serve-http --vault PATH [flags]     serve MCP over Streamable HTTP (127.0.0.1:8765)
  enquire-mcp gen-token                           print a fresh bearer token for serve-http
  enquire-mcp search --vault PATH "query" [flags]  search from the shell
  enquire-mcp index  --vault PATH [flags]         build or update the persistent index
  enquire-mcp build-embeddings --vault PATH [flags]  add dense vectors to the index
  enquire-mcp install-model ALIAS | --list        download a model2vec model
  enquire-mcp eval DATASET_DIR [flags]            measure search quality (BEIR layout)
  enquire-mcp setup  --vault PATH [flags]         index, embed, and print the client config
  enquire-mcp doctor --vault PATH [--json]        check that everything is in order, with fixes
  enquire-mcp configure --client NAME [flags]     the config snippet for an MCP client
  enquire-mcp clear-index --vault PATH            delete the vault's index
  enquire-mcp clear-embeddings --vault PATH       delete the vault's vectors, keep the index
  enquire-mcp prune [--yes]                       delete indexes of vaults that no longer exist
  enquire-mcp --version | --help

"serve" is the default: "enquire-mcp --vault PATH" serves too.

Run "enquire-mcp COMMAND --help" for a command's flags.
The vault can also be given with the ENQUIRE_VAULT environment variable.
`

// command is one subcommand.
type command struct {
	name string
	run  func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"serve", runServe},
		{"serve-http", runServeHTTP},
		{"gen-token", runGenToken},
		{"search", runSearch},
		{"eval", runEval},
		{"index", runIndex},
		{"build-embeddings", runBuildEmbeddings},
		{"install-model", runInstallModel},
		{"setup", runSetup},
		{"doctor", runDoctor},
		{"configure", runConfigure},
		{"clear-index", runClearIndex},
		{"clear-embeddings", runClearEmbeddings},
		{"prune", runPrune},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go exitOnSecondSignal(ctx, os.Stderr)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// exitOnSecondSignal exits at once (code 130) on a second interrupt or
// SIGTERM: the first one asks for a graceful stop (serve-http waits up to
// httpserve.ShutdownTimeout for requests in flight), and a user who
// presses Ctrl-C again does not want to wait. Nothing is lost that a
// kill would not lose: the index commits in transactions.
func exitOnSecondSignal(ctx context.Context, stderr io.Writer) {
	<-ctx.Done()
	again := make(chan os.Signal, 1)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	<-again
	fmt.Fprintln(stderr, "enquire-mcp: interrupted again, exiting without waiting")
	os.Exit(130)
}

// run executes the command line and returns the exit code: 0 on success,
// 2 for a usage error, 1 for any other failure (reported in one line).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, usage, version)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		fmt.Fprintf(stdout, usage, version)
		return 0
	case "-v", "--version", "-version", "version":
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	if args[0] == pdfCommand {
		if err := pdf.ServeIsolated(ctx, args[1:], stdout); err != nil {
			return 1
		}
		return 0
	}
	if strings.HasPrefix(args[0], "-") {
		args = append([]string{"serve"}, args...) // "enquire-mcp --vault X" serves, as the reference CLI does
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(ctx, args[1:], stdout, stderr)
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
				fmt.Fprintf(stderr, "enquire-mcp %s: %v\n", c.name, err)
				return 2
			default:
				fmt.Fprintf(stderr, "enquire-mcp %s: %v\n", c.name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "enquire-mcp: unknown command %q\n\n"+usage, args[0], version)
	return 2
}
