package web

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
)

// CallbackPath is where the identity provider sends the browser back
// after single sign-on; OIDCConfig.RedirectURL must end in it.
const CallbackPath = "/inbox/oidc/callback"

// OIDCConfig is the "oidc" section of the web inbox: single sign-on
// through an OpenID Connect provider (Google, Keycloak, Okta, Entra ID,
// …) with the authorization code flow. The provider's verified email
// selects the person (broker.Person.Email).
type OIDCConfig struct {
	// Issuer is the provider's issuer URL, whose
	// /.well-known/openid-configuration describes it
	// ("https://accounts.google.com").
	Issuer string `yaml:"issuer"`
	// ClientID is the bridge's client id at the provider.
	ClientID string `yaml:"client_id"`
	// ClientSecretEnv names the environment variable holding the
	// client's secret.
	ClientSecretEnv string `yaml:"client_secret_env"`
	// RedirectURL is the address the provider sends the browser back to,
	// registered with the provider: the inbox's public address followed
	// by /inbox/oidc/callback.
	RedirectURL string `yaml:"redirect_url"`
}

// on reports whether single sign-on is configured: the section is
// present with a key set. A section whose keys are all empty is off.
func (o *OIDCConfig) on() bool { return o != nil && *o != (OIDCConfig{}) }

// validate checks the section's shape (not the environment), naming
// the key.
func (o *OIDCConfig) validate() error {
	if o.Issuer == "" {
		return fmt.Errorf("web: oidc.issuer: set the provider's issuer URL (e.g. https://accounts.google.com), or leave every oidc key empty to turn single sign-on off")
	}
	if err := checkProviderURL("oidc.issuer", o.Issuer); err != nil {
		return err
	}
	if o.ClientID == "" || strings.ContainsAny(o.ClientID, " \t\n") {
		return fmt.Errorf("web: oidc.client_id %q: give the client id the provider issued to the bridge", o.ClientID)
	}
	switch {
	case o.ClientSecretEnv == "":
		return fmt.Errorf("web: oidc.client_secret_env: name the environment variable that holds the client's secret")
	case strings.ContainsAny(o.ClientSecretEnv, " =\t\n"):
		return fmt.Errorf("web: oidc.client_secret_env %q must be the name of an environment variable, not its value", o.ClientSecretEnv)
	}
	if err := checkProviderURL("oidc.redirect_url", o.RedirectURL); err != nil {
		return err
	}
	if u, _ := url.Parse(o.RedirectURL); u.Path != CallbackPath {
		return fmt.Errorf("web: oidc.redirect_url %q must end in %s, where the inbox takes the provider's answer (e.g. https://bridge.example.com%s)", o.RedirectURL, CallbackPath, CallbackPath)
	}
	return nil
}

// checkProviderURL checks an absolute https URL without query or
// fragment; plain http is accepted on loopback hosts only.
func checkProviderURL(key, s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("web: %s %q is not an absolute URL: write it as https://host/path", key, s)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("web: %s %q must not carry a query, a fragment or a password", key, s)
	}
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		return fmt.Errorf("web: %s %q must use https (plain http only on localhost)", key, s)
	}
	return nil
}

// loopbackHost reports whether host names this machine.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// secret reads the client secret from the environment.
func (o *OIDCConfig) secret() (string, error) {
	v := os.Getenv(o.ClientSecretEnv)
	if v == "" {
		return "", fmt.Errorf("web: oidc.client_secret_env names %s, but that environment variable is not set", o.ClientSecretEnv)
	}
	return v, nil
}
