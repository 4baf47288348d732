			z
x
			z
x
