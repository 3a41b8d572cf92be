package negotiation

import "strings"

// pxpOptions sets the PXP fields of a transcript payload from send options:
//
//	claims=ID:ORIGIN[:REF],...  (text "claim ID")
//	reviews=ID:VERDICT,...
//	status=continue|agree|escalate (escalate asks one question)
//	depends=ID,...
//	card=N                      (intentCardHash = SHA-256("card N"))
func pxpOptions(pl Payload, o map[string]string) {
	px := pl.Proxy()
	if v, ok := o["claims"]; ok {
		for _, c := range strings.Split(v, ",") {
			f := strings.SplitN(c, ":", 3)
			cl := Claim{ID: f[0], Text: "claim " + f[0], Origin: Origin(f[1])}
			if len(f) == 3 {
				cl.Ref = f[2]
			}
			px.Claims = append(px.Claims, cl)
		}
	}
	if v, ok := o["reviews"]; ok {
		for _, r := range strings.Split(v, ",") {
			id, verdict, _ := strings.Cut(r, ":")
			px.Reviews = append(px.Reviews, Review{ClaimID: id, Verdict: Verdict(verdict)})
		}
	}
	if v, ok := o["status"]; ok {
		px.Status = Status(v)
		if px.Status == StatusEscalate {
			px.Escalation = &Escalation{Question: "May I go on?"}
		}
	}
	if v, ok := o["depends"]; ok {
		px.DependsOn = strings.Split(v, ",")
	}
	if v, ok := o["card"]; ok {
		h := HashOf([]byte("card " + v))
		px.IntentCardHash = &h
	}
}
