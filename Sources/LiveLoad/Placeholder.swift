enum _LiveLoadPlaceholder {}
