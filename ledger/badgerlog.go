package ledger

import (
	"fmt"
	"log/slog"
	"strings"
)

// badgerLogger passes Badger's warnings and errors to slog and drops its
// informational chatter (Badger's default logger writes to stderr).
type badgerLogger struct{ l *slog.Logger }

// Errorf logs a Badger error at error level.
func (b badgerLogger) Errorf(f string, args ...any) {
	b.l.Error("badger error", "detail", strings.TrimSpace(fmt.Sprintf(f, args...)))
}

// Warningf logs a Badger warning at warn level.
func (b badgerLogger) Warningf(f string, args ...any) {
	b.l.Warn("badger warning", "detail", strings.TrimSpace(fmt.Sprintf(f, args...)))
}

// Infof drops Badger's informational messages.
func (badgerLogger) Infof(string, ...any) {}

// Debugf drops Badger's debug messages.
func (badgerLogger) Debugf(string, ...any) {}
