package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/node"
)

func newAgentsCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List VXP's outside agents and revoke their grants",
		Long: "An outside AI agent (a VXP client, identified by its client_id URL) acts for the principal\n" +
			"only with what the principal granted it with a passkey: the operations, on the negotiations,\n" +
			"until the expiry the grant names. It asks for a grant with a user code the principal enters on\n" +
			"the node's pages (http://localhost:7480/device by default), which show the grant in words;\n" +
			"/agents there lists the agents too. Revoking takes authority away at once (the grant's tokens\n" +
			"are refused from then on), so it needs no passkey.",
	}
	f.register(cmd.PersistentFlags())
	list := &cobra.Command{
		Use:   "list",
		Short: "List the agents: client_id, name (the agent's own claim), grants in force, requests",
		Example: "  parley agents list\n" +
			"  parley agents list --json | jq '.[].grants[] | select(.active) | .id'",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			agents, err := s.c.Agents(s.ctx())
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) { printAgents(w, agents) })
		},
	}
	var grant string
	revoke := &cobra.Command{
		Use:   "revoke CLIENT_ID | --grant ID",
		Short: "Revoke every grant of an agent still in force, or one grant",
		Example: "  parley agents revoke https://agent.example/client.json\n" +
			"  parley agents revoke --grant grant_3f0c9d2e8a7b4c1d",
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == (grant != "") {
				return usageErr(errors.New("name either the agent's CLIENT_ID or --grant ID"))
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			if grant != "" {
				r, err := s.c.RevokeGrant(s.ctx(), grant)
				if err != nil {
					return s.fail(err)
				}
				return s.show(func(w io.Writer) {
					if r.Revoked == 0 {
						fmt.Fprintf(w, "grant %s was not in force (unknown, expired or revoked already): nothing changed\n", r.GrantID)
						return
					}
					fmt.Fprintf(w, "revoked grant %s: its tokens are refused from now on\n", r.GrantID)
				})
			}
			r, err := s.c.RevokeAgent(s.ctx(), args[0])
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				if r.Revoked == 0 {
					fmt.Fprintf(w, "no grant of %s was in force: nothing changed\n", r.ClientID)
					return
				}
				fmt.Fprintf(w, "revoked %d grant(s) of %s: its tokens are refused from now on\n", r.Revoked, r.ClientID)
			})
		},
	}
	revoke.Flags().StringVar(&grant, "grant", "", "revoke this one grant instead of every grant of an agent")
	f.registerAct(revoke.Flags())
	cmd.AddCommand(list, revoke)
	return cmd
}

// printAgents writes one line per agent: its client_id, the name it
// gives itself, its grants in force and its requests.
func printAgents(w io.Writer, agents []node.AgentView) {
	if len(agents) == 0 {
		fmt.Fprintln(w, "no agents")
		return
	}
	t := newTable(w)
	t.row("CLIENT_ID", "NAME", "ACTIVE GRANTS", "REQUESTS")
	for _, a := range agents {
		var active []string
		for _, g := range a.Grants {
			if g.Active {
				active = append(active, g.ID)
			}
		}
		grants := "-"
		if len(active) > 0 {
			grants = fmt.Sprintf("%d (%s)", len(active), strings.Join(active, ", "))
		}
		name := a.ClientName
		if name == "" {
			name = "-"
		}
		t.row(a.ClientID, name, grants, len(a.Requests))
	}
	t.flush()
}
