a
}
a
}
