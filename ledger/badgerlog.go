package ledger

import (
	"fmt"
	"log/slog"
	"strings"
)

// badgerLogger passes Badger's warnings and errors to slog and drops its
// informational chatter (Badger's default logger writes to stderr).
type badgerLogger struct{ l *slog.Logger }

func (b badgerLogger) Errorf(f string, args ...any) {
	b.l.Error("badger error", "detail", strings.TrimSpace(fmt.Sprintf(f, args...)))
}

func (b badgerLogger) Warningf(f string, args ...any) {
	b.l.Warn("badger warning", "detail", strings.TrimSpace(fmt.Sprintf(f, args...)))
}

func (badgerLogger) Infof(string, ...any)  {}
func (badgerLogger) Debugf(string, ...any) {}
