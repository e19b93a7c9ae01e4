package broker

// What the external tests of the package reach that is not exported.
var (
	SniffFileType    = sniffFileType
	AllowedFileTypes = allowedFileTypes
	FormatDuration   = formatDuration
)
