package config

import (
	"errors"
	"os"
	"reflect"
	"strings"
)

// CheckEnv reports every `*_env` setting of a channel or store section
// that names an environment variable which is not set (as
// *UnsetEnvError), so that check-config finds a missing token before
// serve does.
func CheckEnv(section string, cfg any) error {
	v := reflect.Indirect(reflect.ValueOf(cfg))
	if v.Kind() != reflect.Struct {
		return nil
	}
	var errs []error
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if f.Type.Kind() != reflect.String || !strings.HasSuffix(tag, "_env") || !f.IsExported() {
			continue
		}
		name := v.Field(i).String()
		if name != "" && os.Getenv(name) == "" {
			errs = append(errs, &UnsetEnvError{Field: section + "." + tag, Var: name})
		}
	}
	return errors.Join(errs...)
}
