package bot

import "testing"

func TestEveryCommandHasADescriptionInBothLanguages(t *testing.T) {
	r := newRoutes(&Handler{})
	all, menu := r.listed(true), r.listed(false)
	if len(all) != len(r.commands) || len(menu) >= len(all) {
		t.Fatalf("listed: %d for admins, %d in the menu, of %d commands", len(all), len(menu), len(r.commands))
	}
	seen := map[string]bool{}
	for _, c := range all {
		if seen[c.name] {
			t.Errorf("/%s is listed twice", c.name)
		}
		seen[c.name] = true
		for _, lang := range []string{"en", "ru"} {
			if tr(lang).Help[c.name] == "" {
				t.Errorf("/%s has no %s description: /help and the menu would lack it", c.name, lang)
			}
		}
	}
	for _, c := range menu {
		if c.adminOnly {
			t.Errorf("admin command /%s is in the menu", c.name)
		}
	}
	if all[0].name != "start" || all[1].name != "help" {
		t.Errorf("order = %v", all)
	}
}
