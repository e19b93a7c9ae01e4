package main

// The time zone database goes inside the binary, so that people's time
// zones (people[].timezone) load on hosts and images without one.
import _ "time/tzdata"
