
}
			z
   		y
        z
    x
	x




}
}
}

    x
