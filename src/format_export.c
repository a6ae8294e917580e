/* format_export.c */
