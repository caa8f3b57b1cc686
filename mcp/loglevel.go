package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// logLevels are the levels logging/setLevel takes (RFC 5424's, as the MCP specification
// names them).
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// checkLogLevel refuses a logging/setLevel whose level is not one of logLevels with -32602
// (invalid params); the SDK would set any string and answer {}.
func checkLogLevel(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method != "logging/setLevel" {
			return next(ctx, method, req)
		}
		// The params as sent, read without the SDK's type for them (deprecated with the
		// logging feature in protocol 2026-07-28, still served for earlier ones).
		var p struct {
			Level string `json:"level"`
		}
		if b, err := json.Marshal(req.GetParams()); err == nil {
			_ = json.Unmarshal(b, &p)
		}
		level := p.Level
		for _, l := range logLevels {
			if level == l {
				return next(ctx, method, req)
			}
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("level %q is not a logging level; send one of %s", level, strings.Join(logLevels, ", "))}
	}
}
