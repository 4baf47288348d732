<?php
define( 'DB_NAME', 'wordpress' );
define( 'DB_USER', 'wp' );
define( 'DB_PASSWORD', 'N.m_JA.4luSa8AIJoxOq' );
define( 'DB_HOST', 'localhost' );
define( 'AUTH_KEY',         'IOKz_#~90IsT!upEhb5d8tHObYvJMr44nQh9Pp+uAaJtyE#2S#0LaX1t-GT%VDzh' );
define( 'SECURE_AUTH_KEY',  'aD0kyxspHDn#K-a7#WxYmhGAl9ZA2PT38zEtOG6OZr9cA^r~^C%bM-2iC#ScT8no' );
define( 'LOGGED_IN_KEY',    'pEel62*EXo0fi!p3sv~cRRhPvL!I_IgME#MoKML!oZXunRu%byn%mvFj+NhUgWxm' );
define( 'NONCE_KEY',        'vuloOowaSl*-OA31veP8jxWv8h2Vo.qNVHgxNZRUWZ.F0X_9zx2_0z-shFF7#%.-' );
define( 'AUTH_SALT',        '#ZQ5%q#GuZY2%3fEwAZdR5i0^97JBsfEP7a5AsB+9e+YHcHaq9!Z-kMsTNF1t3ag' );
$table_prefix = 'wp_';
