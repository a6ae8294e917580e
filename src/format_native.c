/* format_native.c */
