package approval

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Enrolment token bounds.
const (
	// EnrolTokenPrefix starts every enrolment token.
	EnrolTokenPrefix = "parley-enrol-"
	// DefaultEnrolTokenTTL is how long a token stays redeemable unless the
	// issuer says otherwise.
	DefaultEnrolTokenTTL = 24 * time.Hour
	// MaxEnrolTokenTTL bounds a token's lifetime.
	MaxEnrolTokenTTL = 7 * 24 * time.Hour
)

// IssueEnrolToken issues the one-time enrolment token of the first
// credential: 256 random bits from rnd (crypto/rand when nil), valid for
// ttl from now (zero means DefaultEnrolTokenTTL, at most MaxEnrolTokenTTL).
// The store keeps only the token's SHA-256 and replaces any earlier token;
// the returned text is shown once to the operator (parley init prints it).
func IssueEnrolToken(ctx context.Context, store TokenStore, now time.Time, ttl time.Duration, rnd io.Reader) (string, error) {
	if ttl == 0 {
		ttl = DefaultEnrolTokenTTL
	}
	if ttl < time.Minute || ttl > MaxEnrolTokenTTL {
		return "", fail(CodeInvalidRequest, "enrolment token ttl %s is outside [1m, %s]", ttl, MaxEnrolTokenTTL)
	}
	if rnd == nil {
		rnd = rand.Reader
	}
	var b [32]byte
	if _, err := io.ReadFull(rnd, b[:]); err != nil {
		return "", fmt.Errorf("approval: read randomness: %w", err)
	}
	token := EnrolTokenPrefix + hex.EncodeToString(b[:])
	now = now.UTC()
	if err := store.PutEnrolToken(ctx, EnrolToken{Hash: tokenHash(token), IssuedAt: now, ExpiresAt: now.Add(ttl)}); err != nil {
		return "", fmt.Errorf("approval: store enrolment token: %w", err)
	}
	return token, nil
}

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// checkEnrolToken returns the stored token that token is, comparing hashes
// in constant time, or refuses: CodeTokenInvalid when no token was issued
// or it is another, CodeTokenUsed when it was redeemed, CodeTokenExpired
// when its window elapsed. It spends nothing.
func checkEnrolToken(ctx context.Context, store TokenStore, token string, now time.Time) (EnrolToken, error) {
	rec, err := store.EnrolToken(ctx)
	if errors.Is(err, ErrNotFound) {
		return EnrolToken{}, fail(CodeTokenInvalid, "no enrolment token was issued")
	}
	if err != nil {
		return EnrolToken{}, fmt.Errorf("approval: enrolment token: %w", err)
	}
	got := tokenHash(strings.TrimSpace(token))
	if subtle.ConstantTimeCompare([]byte(got), []byte(rec.Hash)) != 1 {
		return EnrolToken{}, fail(CodeTokenInvalid, "not the issued enrolment token")
	}
	if !rec.RedeemedAt.IsZero() {
		return EnrolToken{}, fail(CodeTokenUsed, "the enrolment token was redeemed at %s", formatTime(rec.RedeemedAt))
	}
	if !now.Before(rec.ExpiresAt) {
		return EnrolToken{}, fail(CodeTokenExpired, "the enrolment token expired at %s", formatTime(rec.ExpiresAt))
	}
	return rec, nil
}

// redeemEnrolToken spends rec once; a concurrent redemption that loses is
// refused with CodeTokenUsed.
func redeemEnrolToken(ctx context.Context, store TokenStore, rec EnrolToken, now time.Time) error {
	already, err := store.RedeemEnrolToken(ctx, rec.Hash, now)
	if errors.Is(err, ErrNotFound) {
		return fail(CodeTokenInvalid, "the enrolment token was replaced")
	}
	if err != nil {
		return fmt.Errorf("approval: redeem enrolment token: %w", err)
	}
	if already {
		return fail(CodeTokenUsed, "the enrolment token was redeemed")
	}
	return nil
}
