# Writes the fuzz targets' libFuzzer dictionary, OUTPUT: the language's
# syntax (SYNTAX, syntax.dict), then every builtin's name as the compiler's
# table lists them (`TILEC --list-builtins=dict`), so that a new builtin
# reaches the fuzzers without an edit here.
execute_process(COMMAND ${TILEC} --list-builtins=dict
                OUTPUT_VARIABLE names COMMAND_ERROR_IS_FATAL ANY)
file(READ ${SYNTAX} syntax)
file(WRITE ${OUTPUT} "${syntax}# The builtins (tilec --list-builtins=dict).\n${names}")
