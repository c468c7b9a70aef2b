package main

import (
	"fmt"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/embed/model2vec"
	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx"
)

// ortCheck reports whether this binary runs transformer models, which
// ONNX Runtime library it would load and from where, and the transformer
// models installed.
func ortCheck(env doctorEnv) check {
	c := check{Name: "transformers", Status: statusInfo}
	var installed []string
	if cache, err := models.CacheDir(env.embed.options()); err == nil {
		for _, s := range onnx.Known() {
			if _, ok := model2vec.FindRepository(models.Repository(s), cache); ok {
				installed = append(installed, s.Name+" ("+s.Kind.String()+")")
			}
		}
	}
	if !env.ortBuild {
		c.Detail = "this binary has no ONNX Runtime: the transformer models of install-model --list need the ort build"
		if len(installed) > 0 {
			c.Status, c.Items = statusWarn, installed
			c.Fix = "these installed models need the ort build of enquire-mcp (see the README)"
		}
		return c
	}
	path, source, err := env.findORT()
	if err != nil {
		c.Status, c.Detail = statusWarn, err.Error()
		c.Fix = "download ONNX Runtime (see the README) and pass --ort-lib PATH or set " + onnx.LibraryEnv
		return c
	}
	c.Status, c.Detail, c.Items = statusOK, fmt.Sprintf("ONNX Runtime library %s (%s)", path, source), installed
	if len(installed) == 0 {
		c.Detail += "; no transformer model installed (install-model --list)"
	} else {
		c.Detail += "; installed: " + strings.Join(installed, ", ")
		c.Items = nil
	}
	return c
}
