package spelling

import "testing"

func TestNearestFindsTheWordATypoMeant(t *testing.T) {
	flags := []string{"session", "socket", "detach", "root", "as", "json"}
	for typo, want := range map[string]string{
		"sesion":  "session", // a letter left out
		"sessoin": "session", // neighbours swapped
		"sokcet":  "socket",
		"jsno":    "json",
		"detatch": "detach", // a letter too many
		"verbose": "",       // nothing like it
		"x":       "",
	} {
		got, ok := Nearest(typo, flags)
		if got != want || ok != (want != "") {
			t.Errorf("Nearest(%q) = %q, %v; want %q", typo, got, ok, want)
		}
	}
}
