package p2p

import (
	"testing"

	pubsub "github.com/libp2p/go-libp2p-pubsub"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

// TestVerdict pins which refusals on a topic score the forwarding peer
// down (ValidationReject: it could have checked the same) and which do
// not (ValidationIgnore: the publisher's rate, this node's clock).
func TestVerdict(t *testing.T) {
	for code, want := range map[Code]pubsub.ValidationResult{
		CodeOverRate:                        pubsub.ValidationIgnore,
		CodeBadTimestamp:                    pubsub.ValidationIgnore,
		Code(identity.CodeLinkExpired):      pubsub.ValidationIgnore,
		Code(identity.CodeLinkNotYetValid):  pubsub.ValidationIgnore,
		Code(negotiation.CodeBadSignature):  pubsub.ValidationReject,
		Code(negotiation.CodeSchemaInvalid): pubsub.ValidationReject,
		Code(negotiation.CodeTooLarge):      pubsub.ValidationReject,
		Code(identity.CodeBadFrame):         pubsub.ValidationReject,
		Code(identity.CodeMalformed):        pubsub.ValidationReject,
		CodeNotAnnounce:                     pubsub.ValidationReject,
		CodeSenderMismatch:                  pubsub.ValidationReject,
	} {
		if got := verdict(code); got != want {
			t.Errorf("%s: %v, want %v", code, got, want)
		}
	}
}
