import os
SECRET_KEY = 'django-insecure-.GD+_GEcIzzOLWON8oc*1+1J8^Ir8K_KJtW7NLQN'
DEBUG = False
DATABASES = {
    'default': {
        'ENGINE': 'django.db.backends.postgresql',
        'NAME': 'app',
        'USER': 'app',
        'PASSWORD': 'RmfjvakbXj_*-dJ5VT',
        'HOST': 'db.internal',
    }
}
