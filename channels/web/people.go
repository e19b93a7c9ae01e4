package web

import (
	"errors"
	"fmt"
	"net/mail"
	"os"
	"strings"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/config"
)

// ValidatePeople checks how people sign in to the web inbox, reporting
// every problem, each naming its key and variable, never a secret:
//
//   - a person's web_token_env that is not a variable name, or names a
//     variable that is unset or empty (a *config.UnsetEnvError), always:
//     a typo must never lock a person out silently;
//   - exposed (the bridge is reachable beyond loopback), a person's token
//     shorter than 16 characters;
//   - two people holding the same token, or a person holding the shared
//     token (token_env): a token must say who signs in;
//   - token_person naming no person listed under people;
//   - a person whose id is the user the shared token (without
//     token_person) or the open page acts as, which would make everyone
//     with the token that person;
//   - with oidc: the client secret's variable unset, a person's email
//     that is not an address or is also another person's, or no email at
//     all.
//
// serve and check-config call it with the configuration's people; New
// calls it again as it reads the variables.
func ValidatePeople(cfg Config, people []broker.Person, exposed bool) error {
	var p config.Problems
	p.Add(checkPeopleTokens(cfg, people, exposed))
	if cfg.TokenPerson != "" && indexOf(people, cfg.TokenPerson) < 0 {
		p.Add(fmt.Errorf("channels.web.token_person: %q is not a person listed under people", cfg.TokenPerson))
	}
	if user, why := sharedUser(cfg, people); user != "" {
		if i := indexOf(people, user); i >= 0 {
			p.Add(fmt.Errorf("people[%d].id: %q is also the user %s, so everyone signed in that way would act as this person: give the person another id, or set channels.web.name (or token_person: %q, if the shared token is theirs)", i, user, why, user))
		}
	}
	if cfg.OIDC.on() {
		p.Add(checkEmails(cfg.OIDC, people))
	}
	return errors.Join(p...)
}

// tokenHolder is who holds a token, as the file writes it.
type tokenHolder struct {
	field, env, person string
}

func (h tokenHolder) String() string {
	if h.person == "" {
		return fmt.Sprintf("the shared token in %s (%s)", h.env, h.field)
	}
	return fmt.Sprintf("the token of %s in %s (%s)", h.person, h.env, h.field)
}

// checkPeopleTokens checks each person's web_token_env: a variable name,
// set, long enough when exposed, and a token of their own.
func checkPeopleTokens(cfg Config, people []broker.Person, exposed bool) error {
	var p config.Problems
	held := map[string]tokenHolder{}
	if cfg.TokenEnv != "" {
		if v := os.Getenv(cfg.TokenEnv); v != "" {
			held[v] = tokenHolder{field: "channels.web.token_env", env: cfg.TokenEnv}
		}
	}
	for i, per := range people {
		if per.WebTokenEnv == "" {
			continue
		}
		f := fmt.Sprintf("people[%d].web_token_env", i)
		if strings.ContainsAny(per.WebTokenEnv, " =\t\n") {
			p.Add(fmt.Errorf("%s: %q must be the name of an environment variable, not its value", f, per.WebTokenEnv))
			continue
		}
		v := os.Getenv(per.WebTokenEnv)
		if v == "" {
			p.Add(&config.UnsetEnvError{Field: f, Var: per.WebTokenEnv})
			continue
		}
		if exposed && len(v) < minTokenLen {
			p.Add(fmt.Errorf("%s: the token in %s has %d characters; a bridge reachable beyond loopback needs at least %d (e.g. openssl rand -base64 24)", f, per.WebTokenEnv, len(v), minTokenLen))
		}
		if first, dup := held[v]; dup {
			p.Add(fmt.Errorf("%s: the token of %s in %s is the same as %s: give each person a token of their own", f, per.ID, per.WebTokenEnv, first))
			continue
		}
		held[v] = tokenHolder{field: f, env: per.WebTokenEnv, person: per.ID}
	}
	return errors.Join(p...)
}

// sharedUser returns the user that acts as no person, when there is one
// (the shared token without token_person, or an open loopback page), and
// how the error calls it.
func sharedUser(cfg Config, people []broker.Person) (user, why string) {
	switch {
	case cfg.Disabled || cfg.TokenPerson != "":
		return "", ""
	case cfg.TokenEnv != "":
		return orDefault(cfg.Name, "web"), "the web inbox's shared token signs in as (channels.web.name, default web)"
	case cfg.SignsIn(people):
		return "", ""
	}
	return orDefault(cfg.Name, "local"), "the open web inbox records answers as (channels.web.name, default local)"
}

// SignsIn reports whether the inbox asks to sign in, rather than being
// open on loopback: a shared token, a person's own token or single
// sign-on is configured.
func (c Config) SignsIn(people []broker.Person) bool {
	if c.TokenEnv != "" || c.OIDC.on() {
		return true
	}
	for _, per := range people {
		if per.WebTokenEnv != "" {
			return true
		}
	}
	return false
}

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// checkEmails checks what single sign-on needs: the client secret, and
// emails that select one person each.
func checkEmails(o *OIDCConfig, people []broker.Person) error {
	var p config.Problems
	if o.ClientSecretEnv != "" && os.Getenv(o.ClientSecretEnv) == "" {
		p.Add(&config.UnsetEnvError{Field: "channels.web.oidc.client_secret_env", Var: o.ClientSecretEnv})
	}
	seen := map[string]int{}
	for i, per := range people {
		if per.Email == "" {
			continue
		}
		f := fmt.Sprintf("people[%d].email", i)
		if a, err := mail.ParseAddress(per.Email); err != nil || a.Address != per.Email || a.Name != "" {
			p.Add(fmt.Errorf("%s: %q is not an email address: write it as ana@example.com", f, per.Email))
			continue
		}
		k := strings.ToLower(per.Email)
		if j, dup := seen[k]; dup {
			p.Add(fmt.Errorf("%s: %q is also the email of people[%d] (%s): single sign-on must select one person", f, per.Email, j, people[j].ID))
			continue
		}
		seen[k] = i
	}
	if len(seen) == 0 {
		p.Add(errors.New("channels.web.oidc: no person has an email, so single sign-on would sign nobody in: set email on the people who sign in this way"))
	}
	return errors.Join(p...)
}

// indexOf returns the index of the person with id, or -1.
func indexOf(people []broker.Person, id string) int {
	for i, per := range people {
		if per.ID == id {
			return i
		}
	}
	return -1
}

// listOf returns the directory's people as ValidatePeople takes them.
func listOf(d *broker.People) []broker.Person {
	all := d.All()
	out := make([]broker.Person, len(all))
	for i, per := range all {
		out[i] = *per
	}
	return out
}
