package bot

import "testing"

func TestEveryCommandHasADescriptionInBothLanguages(t *testing.T) {
	names := commandNames(true)
	if len(names) != len(commands) || len(commandNames(false)) != len(commands)-len(adminCommands) {
		t.Fatalf("commandNames lists %d of %d commands", len(names), len(commands))
	}
	for _, name := range names {
		for _, lang := range []string{"en", "ru"} {
			if texts[lang][helpKey(name)] == "" {
				t.Errorf("/%s has no %s description (text %q): /help and the menu would lack it", name, lang, helpKey(name))
			}
		}
	}
	if names[0] != "start" || names[1] != "help" {
		t.Errorf("order = %v", names)
	}
}
