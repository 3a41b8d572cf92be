package identity

import (
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
)

// Config configures a Keyring. Start from DefaultConfig and change fields;
// Validate names the first bad field.
type Config struct {
	// Dir is the node's data directory. Keys live in Dir/keys.
	Dir string
	// ScryptWorkFactor is log2 of the scrypt N parameter that age uses to
	// encrypt the inbox key file under the passphrase. The default, 18, is
	// age's own; lower values are for tests only.
	ScryptWorkFactor int
	// KeystoreScryptN and KeystoreScryptP are the scrypt parameters of the
	// go-ethereum keystore file of the EVM key. The defaults are go-ethereum's
	// standard ones; keystore.LightScryptN/P are for tests only.
	KeystoreScryptN int
	KeystoreScryptP int
	// KEM is the KEM of newly created encryption keys.
	KEM KEM
	// EncryptionKeyLifetime is how long a new encryption key is current:
	// its notAfter is its creation time plus this.
	EncryptionKeyLifetime time.Duration
	// GracePeriod is how long a private encryption key is kept after its
	// notAfter (the mailbox retention) before Prune deletes it.
	GracePeriod time.Duration
	// LinkLifetime is how long an identity link issued by the keyring is
	// valid: its expiresAt is its issuedAt plus this.
	LinkLifetime time.Duration
}

// Default values of Config.
const (
	DefaultScryptWorkFactor      = 18
	DefaultEncryptionKeyLifetime = 30 * 24 * time.Hour
	DefaultGracePeriod           = 7 * 24 * time.Hour
	DefaultLinkLifetime          = 90 * 24 * time.Hour
)

// DefaultConfig returns the production configuration for the data
// directory dir.
func DefaultConfig(dir string) Config {
	return Config{
		Dir:                   dir,
		ScryptWorkFactor:      DefaultScryptWorkFactor,
		KeystoreScryptN:       keystore.StandardScryptN,
		KeystoreScryptP:       keystore.StandardScryptP,
		KEM:                   KEMMLKEM768X25519,
		EncryptionKeyLifetime: DefaultEncryptionKeyLifetime,
		GracePeriod:           DefaultGracePeriod,
		LinkLifetime:          DefaultLinkLifetime,
	}
}

// Validate returns an ErrBadConfig error naming the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.Dir == "":
		return fail(CodeBadConfig, "Dir is empty")
	case c.ScryptWorkFactor < 1 || c.ScryptWorkFactor > 22:
		return fail(CodeBadConfig, "ScryptWorkFactor %d is outside 1..22", c.ScryptWorkFactor)
	case c.KeystoreScryptN < 2 || c.KeystoreScryptN&(c.KeystoreScryptN-1) != 0:
		return fail(CodeBadConfig, "KeystoreScryptN %d is not a power of two above 1", c.KeystoreScryptN)
	case c.KeystoreScryptP < 1:
		return fail(CodeBadConfig, "KeystoreScryptP %d is below 1", c.KeystoreScryptP)
	case !c.KEM.Known():
		return fail(CodeBadConfig, "KEM %q is not supported", c.KEM)
	case c.EncryptionKeyLifetime < time.Minute:
		return fail(CodeBadConfig, "EncryptionKeyLifetime %v is under a minute", c.EncryptionKeyLifetime)
	case c.GracePeriod < 0:
		return fail(CodeBadConfig, "GracePeriod %v is negative", c.GracePeriod)
	case c.LinkLifetime < time.Minute:
		return fail(CodeBadConfig, "LinkLifetime %v is under a minute", c.LinkLifetime)
	}
	return nil
}
