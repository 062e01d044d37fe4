// Command key mints a partner key (core/apikey): `make key NAME=<name> LIMIT=<n>
// [EXPIRES=<unix seconds or YYYY-MM-DD>]`. The secret is API_KEY_SECRET from the
// environment, else from .dev.vars (make dev's local secret). The key is the last line
// of the output.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/campervan/agent-api/core/apikey"
)

const usage = "usage: make key NAME=<partner name, a-z 0-9 . _ -> LIMIT=<requests per rate-limit window> [EXPIRES=<YYYY-MM-DD or unix seconds>]"

func main() {
	name := flag.String("name", "", "the partner's name")
	limit := flag.String("limit", "", "requests per rate-limit window")
	expires := flag.String("expires", "", "expiry: YYYY-MM-DD (UTC midnight) or unix seconds; empty: none")
	vars := flag.String("dev-vars", ".dev.vars", "the file read when API_KEY_SECRET is not in the environment")
	flag.Parse()
	if err := run(*name, *limit, *expires, *vars); err != nil {
		fmt.Fprintln(os.Stderr, "make key:", err)
		os.Exit(2)
	}
}

func run(name, limitS, expiresS, devVars string) error {
	if name == "" || limitS == "" {
		return fmt.Errorf("%s", usage)
	}
	limit, err := strconv.ParseInt(limitS, 10, 64)
	if err != nil {
		return fmt.Errorf("LIMIT %q is not a whole number\n%s", limitS, usage)
	}
	exp, err := parseExpiry(expiresS)
	if err != nil {
		return fmt.Errorf("EXPIRES %q: %v\n%s", expiresS, err, usage)
	}
	secret, from := os.Getenv("API_KEY_SECRET"), "the environment"
	if secret == "" {
		secret, from = devVar(devVars, "API_KEY_SECRET"), devVars
	}
	if secret == "" {
		return fmt.Errorf("no API_KEY_SECRET in the environment or in %s (make dev writes one there; for production, the value of the wrangler secret)", devVars)
	}
	v, err := apikey.NewVerifier(secret, "")
	if err != nil {
		return fmt.Errorf("API_KEY_SECRET from %s: %v", from, err)
	}
	key, err := v.Mint(name, limit, exp)
	if err != nil {
		return err
	}
	when := "never"
	if exp != 0 {
		when = time.Unix(exp, 0).UTC().Format(time.RFC3339)
	}
	fmt.Printf("partner %s, %d requests per window, expires %s, signed with API_KEY_SECRET from %s\n", name, limit, when, from)
	fmt.Println(key)
	return nil
}

// parseExpiry reads YYYY-MM-DD (midnight UTC) or unix seconds; "" is no expiry.
func parseExpiry(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t.Unix(), nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("neither a date (YYYY-MM-DD) nor unix seconds")
	}
	return n, nil
}

// devVar returns name's value in a .dev.vars file (NAME="value" or NAME=value lines).
func devVar(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && strings.TrimSpace(k) == name {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}
