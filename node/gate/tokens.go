package gate

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/parleynet/parley/approval"
)

// The data-directory tokens. A one-time token that only whoever can read
// the node's data directory holds is the authority of the two acts no
// passkey can approve: enrolling the first passkey, and revoking the last
// one. The node's API never issues one (its bearer key is capability, not
// authority): `parley init` and `parley approvals enrol` (or `passkeys
// revoke` of the last passkey) make them by writing the data directory
// directly, whether or not the node runs. The tokens live in small files
// beside the Badger stores, not inside them, since a running node holds
// its Badger directories locked.
const (
	// TokensFileName is the record of the data-directory tokens: their
	// SHA-256 hashes, issue, expiry and redemption times (mode 0600).
	TokensFileName = "tokens.json"
	// EnrolTokenFileName holds the text of the current enrolment token
	// (mode 0600) for the principal to paste on the passkeys page; it is
	// removed once the token is redeemed.
	EnrolTokenFileName = "enrol-token"
	// tokensLockName is the lock file every read-modify-write of the
	// record holds.
	tokensLockName = "tokens.lock"
	// tokensFormat is the record's format.
	tokensFormat = "parley-tokens/1"
	// RevokeTokenPrefix starts every revocation token.
	RevokeTokenPrefix = "parley-revoke-"
	// DefaultRevokeTokenTTL is how long a revocation token stays
	// redeemable: it is made and used by one command.
	DefaultRevokeTokenTTL = 10 * time.Minute
)

// tokenRecord is the stored form of one data-directory token: its hash,
// never its text.
type tokenRecord struct {
	// Hash is lowercase hex SHA-256 of the token text.
	Hash string `json:"hash"`
	// Credential is, for a revocation token, the reference of the one
	// credential it revokes.
	Credential string    `json:"credential,omitempty"`
	IssuedAt   time.Time `json:"issuedAt"`
	ExpiresAt  time.Time `json:"expiresAt"`
	// RedeemedAt is set once the token was spent.
	RedeemedAt time.Time `json:"redeemedAt,omitzero"`
}

// tokensFile is the content of TokensFileName.
type tokensFile struct {
	Format string       `json:"format"`
	Enrol  *tokenRecord `json:"enrol,omitempty"`
	Revoke *tokenRecord `json:"revoke,omitempty"`
}

// dirTokens is the token record of one data directory. Every change is a
// read-modify-write under an exclusive lock of the lock file (so `parley
// approvals enrol` and a running node never lose each other's writes),
// written atomically (a temporary file, synced, renamed over the record,
// the directory synced) with mode 0600: a call that returns nil is on
// disk. It implements the enrolment half of approval.TokenStore.
type dirTokens struct {
	dir string
	mu  sync.Mutex // serialises this process's calls; the file lock the processes'
}

var _ approval.TokenStore = (*dirTokens)(nil)

func newDirTokens(dataDir string) *dirTokens { return &dirTokens{dir: dataDir} }

func (d *dirTokens) path(name string) string { return filepath.Join(d.dir, name) }

// locked runs f with the record read, under both locks; when f returns
// write = true the record f changed is written back.
func (d *dirTokens) locked(f func(tf *tokensFile) (write bool, err error)) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	unlock, err := lockFile(d.path(tokensLockName))
	if err != nil {
		return fmt.Errorf("gate: tokens: lock: %w", err)
	}
	defer unlock()
	tf, err := d.read()
	if err != nil {
		return err
	}
	write, err := f(&tf)
	if err != nil || !write {
		return err
	}
	b, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(d.path(TokensFileName), append(b, '\n'))
}

// read returns the record, empty when the file does not exist. A file
// that does not parse is reported as damaged, never read as empty.
func (d *dirTokens) read() (tokensFile, error) {
	p := d.path(TokensFileName)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return tokensFile{Format: tokensFormat}, nil
	}
	if err != nil {
		return tokensFile{}, fmt.Errorf("gate: tokens: %w", err)
	}
	var tf tokensFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tf); err != nil {
		return tokensFile{}, fmt.Errorf("gate: tokens: %s is damaged: %w", p, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return tokensFile{}, fmt.Errorf("gate: tokens: %s is damaged: trailing data", p)
	}
	if tf.Format != tokensFormat {
		return tokensFile{}, fmt.Errorf("gate: tokens: %s has format %q, want %q", p, tf.Format, tokensFormat)
	}
	return tf, nil
}

// PutEnrolToken replaces the current enrolment token.
func (d *dirTokens) PutEnrolToken(_ context.Context, t approval.EnrolToken) error {
	return d.locked(func(tf *tokensFile) (bool, error) {
		tf.Enrol = &tokenRecord{Hash: t.Hash, IssuedAt: t.IssuedAt, ExpiresAt: t.ExpiresAt, RedeemedAt: t.RedeemedAt}
		return true, nil
	})
}

// EnrolToken returns the current enrolment token, or approval.ErrNotFound.
func (d *dirTokens) EnrolToken(context.Context) (approval.EnrolToken, error) {
	var out approval.EnrolToken
	err := d.locked(func(tf *tokensFile) (bool, error) {
		if tf.Enrol == nil {
			return false, approval.ErrNotFound
		}
		r := tf.Enrol
		out = approval.EnrolToken{Hash: r.Hash, IssuedAt: r.IssuedAt, ExpiresAt: r.ExpiresAt, RedeemedAt: r.RedeemedAt}
		return false, nil
	})
	return out, err
}

// RedeemEnrolToken marks the current token with hash redeemed at at,
// once, durably, and removes the token's text file: it enrols nothing
// again.
func (d *dirTokens) RedeemEnrolToken(_ context.Context, hash string, at time.Time) (bool, error) {
	var already bool
	err := d.locked(func(tf *tokensFile) (bool, error) {
		if tf.Enrol == nil || tf.Enrol.Hash != hash {
			return false, approval.ErrNotFound
		}
		if !tf.Enrol.RedeemedAt.IsZero() {
			already = true
			return false, nil
		}
		tf.Enrol.RedeemedAt = at.UTC()
		return true, nil
	})
	if err == nil && !already {
		_ = os.Remove(d.path(EnrolTokenFileName)) // the record says it is spent either way
	}
	return already, err
}

// issueEnrol makes a new enrolment token valid for ttl, records its hash
// (replacing an earlier token) and writes its text to EnrolTokenFileName,
// all under the lock.
func (d *dirTokens) issueEnrol(ctx context.Context, now time.Time, ttl time.Duration) (string, time.Time, error) {
	var token string
	var exp time.Time
	err := d.locked(func(tf *tokensFile) (bool, error) {
		var err error
		token, err = approval.IssueEnrolToken(ctx, enrolSlot{tf}, now, ttl, nil)
		if err != nil {
			return false, err
		}
		exp = tf.Enrol.ExpiresAt
		if err := writeAtomic(d.path(EnrolTokenFileName), []byte(token+"\n")); err != nil {
			return false, err
		}
		return true, nil
	})
	return token, exp, err
}

// enrolSlot lets approval.IssueEnrolToken write into a record already
// held under the lock.
type enrolSlot struct{ tf *tokensFile }

func (s enrolSlot) PutEnrolToken(_ context.Context, t approval.EnrolToken) error {
	s.tf.Enrol = &tokenRecord{Hash: t.Hash, IssuedAt: t.IssuedAt, ExpiresAt: t.ExpiresAt}
	return nil
}

func (s enrolSlot) EnrolToken(context.Context) (approval.EnrolToken, error) {
	return approval.EnrolToken{}, approval.ErrNotFound
}

func (s enrolSlot) RedeemEnrolToken(context.Context, string, time.Time) (bool, error) {
	return false, approval.ErrNotFound
}

// currentEnrol returns the text of the current enrolment token when it
// is still redeemable (recorded, not redeemed, not expired at now and its
// text file matches the record), else "".
func (d *dirTokens) currentEnrol(now time.Time) (string, time.Time, error) {
	var token string
	var exp time.Time
	err := d.locked(func(tf *tokensFile) (bool, error) {
		r := tf.Enrol
		if r == nil || !r.RedeemedAt.IsZero() || !now.Before(r.ExpiresAt) {
			return false, nil
		}
		b, err := os.ReadFile(d.path(EnrolTokenFileName))
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		t := strings.TrimSpace(string(b))
		if subtle.ConstantTimeCompare([]byte(tokenHash(t)), []byte(r.Hash)) == 1 {
			token, exp = t, r.ExpiresAt
		}
		return false, nil
	})
	return token, exp, err
}

// issueRevoke makes a one-time token that revokes the credential with
// reference ref, valid for ttl, and records its hash (replacing an
// earlier revocation token). Its text is returned, never written.
func (d *dirTokens) issueRevoke(ref string, now time.Time, ttl time.Duration) (string, error) {
	if ttl <= 0 {
		ttl = DefaultRevokeTokenTTL
	}
	if ttl < time.Minute || ttl > approval.MaxEnrolTokenTTL {
		return "", fail(CodeBadArgument, "revocation token ttl %s is outside [1m, %s]", ttl, approval.MaxEnrolTokenTTL)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	token := RevokeTokenPrefix + hex.EncodeToString(b[:])
	now = now.UTC()
	err := d.locked(func(tf *tokensFile) (bool, error) {
		tf.Revoke = &tokenRecord{Hash: tokenHash(token), Credential: ref, IssuedAt: now, ExpiresAt: now.Add(ttl)}
		return true, nil
	})
	return token, err
}

// redeemRevoke spends the revocation token for the credential with
// reference ref, once, durably: token_invalid when none was made or it is
// another or for another credential, token_used, token_expired.
func (d *dirTokens) redeemRevoke(token, ref string, now time.Time) error {
	return d.locked(func(tf *tokensFile) (bool, error) {
		r := tf.Revoke
		if r == nil {
			return false, fail(Code(approval.CodeTokenInvalid), "no revocation token was made (`parley approvals passkeys revoke` makes one from the data directory)")
		}
		if subtle.ConstantTimeCompare([]byte(tokenHash(strings.TrimSpace(token))), []byte(r.Hash)) != 1 {
			return false, fail(Code(approval.CodeTokenInvalid), "not the revocation token the data directory holds")
		}
		if r.Credential != ref {
			return false, fail(Code(approval.CodeTokenInvalid), "the revocation token is for credential %s, not %s", r.Credential, ref)
		}
		if !r.RedeemedAt.IsZero() {
			return false, fail(Code(approval.CodeTokenUsed), "the revocation token was used at %s", r.RedeemedAt.UTC().Format(time.RFC3339))
		}
		if !now.Before(r.ExpiresAt) {
			return false, fail(Code(approval.CodeTokenExpired), "the revocation token expired at %s", r.ExpiresAt.UTC().Format(time.RFC3339))
		}
		r.RedeemedAt = now.UTC()
		return true, nil
	})
}

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// writeAtomic writes data to path with mode 0600: a temporary file in the
// same directory, synced, renamed over path, and the directory synced.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// IssueEnrolToken issues the one-time token that enrols the first passkey
// of the node whose data directory is dataDir, valid for ttl (zero: 24
// hours), and returns its text: the record in dataDir/tokens.json keeps
// only its hash, the text goes to dataDir/enrol-token (mode 0600) for the
// principal to read, and a later token replaces it. It writes the data
// directory directly, whether or not the node runs (a running node reads
// the record at each enrolment); `parley init` and `parley approvals
// enrol` call it, the node's API never does. The token enrols only while
// no passkey is registered: a further passkey needs an approval by an
// existing one.
func IssueEnrolToken(ctx context.Context, dataDir string, now time.Time, ttl time.Duration) (string, error) {
	t, _, err := IssueEnrolTokenUntil(ctx, dataDir, now, ttl)
	return t, err
}

// IssueEnrolTokenUntil is IssueEnrolToken that also returns when the
// token expires.
func IssueEnrolTokenUntil(ctx context.Context, dataDir string, now time.Time, ttl time.Duration) (string, time.Time, error) {
	if err := checkDataDir(dataDir); err != nil {
		return "", time.Time{}, err
	}
	token, exp, err := newDirTokens(dataDir).issueEnrol(ctx, now, ttl)
	if err != nil {
		if approval.CodeOf(err) != "" {
			return "", time.Time{}, failWrap(CodeBadArgument, err, "enrolment token")
		}
		return "", time.Time{}, failWrap(CodeStoreFailed, err, "enrolment token")
	}
	return token, exp, nil
}

// EnrolTokenOf returns the data directory's enrolment token when it can
// still enrol (issued, not redeemed, not expired at now), with its
// expiry; "" when there is none.
func EnrolTokenOf(dataDir string, now time.Time) (string, time.Time, error) {
	if err := checkDataDir(dataDir); err != nil {
		return "", time.Time{}, err
	}
	t, exp, err := newDirTokens(dataDir).currentEnrol(now)
	if err != nil {
		return "", time.Time{}, failWrap(CodeStoreFailed, err, "enrolment token")
	}
	return t, exp, nil
}

// IssueRevokeToken makes the one-time token that revokes the credential
// with reference ref (approval.CredentialRef) when no other passkey can
// approve its revocation, valid for ttl (zero: 10 minutes), by writing
// its hash to dataDir's token record; the text is returned and written
// nowhere. Like IssueEnrolToken it needs the data directory, never the
// API, and works whether or not the node runs.
func IssueRevokeToken(dataDir, ref string, now time.Time, ttl time.Duration) (string, error) {
	if err := checkDataDir(dataDir); err != nil {
		return "", err
	}
	if len(ref) != 32 || strings.Trim(ref, "0123456789abcdef") != "" {
		return "", fail(CodeBadArgument, "%q is not a credential reference (32 lowercase hex digits)", ref)
	}
	t, err := newDirTokens(dataDir).issueRevoke(ref, now, ttl)
	if err != nil && CodeOf(err) == "" {
		return "", failWrap(CodeStoreFailed, err, "revocation token")
	}
	return t, err
}

// checkDataDir refuses a data directory that does not exist.
func checkDataDir(dir string) error {
	if strings.TrimSpace(dir) == "" {
		return fail(CodeBadArgument, "no data directory")
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return failWrap(CodeBadArgument, err, "data directory")
	}
	if !fi.IsDir() {
		return fail(CodeBadArgument, "%s is not a directory", dir)
	}
	return nil
}

// tokenStore is the approval.Store the ceremonies use: the Badger store
// for credentials, approvals and consumptions, the data directory's
// record for the enrolment token.
type tokenStore struct {
	*Store
	tokens *dirTokens
}

var _ approval.Store = tokenStore{}

func (s tokenStore) PutEnrolToken(ctx context.Context, t approval.EnrolToken) error {
	return s.tokens.PutEnrolToken(ctx, t)
}

func (s tokenStore) EnrolToken(ctx context.Context) (approval.EnrolToken, error) {
	return s.tokens.EnrolToken(ctx)
}

func (s tokenStore) RedeemEnrolToken(ctx context.Context, hash string, at time.Time) (bool, error) {
	return s.tokens.RedeemEnrolToken(ctx, hash, at)
}
