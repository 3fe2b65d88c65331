-- MySQL dump of the shop database
DROP TABLE IF EXISTS `orders`;
CREATE TABLE `customers` (
  `id` INT UNSIGNED NOT NULL AUTO_INCREMENT,
  `email` VARCHAR(255) NOT NULL,
  `name` VARCHAR(120) DEFAULT NULL,
  `created_at` DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (`id`),
  UNIQUE KEY `email_idx` (`email`)
) ENGINE=InnoDB AUTO_INCREMENT=1042 DEFAULT CHARSET=utf8mb4;
CREATE TABLE `orders` (
  `id` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  `customer_id` INT UNSIGNED NOT NULL,
  `total` DECIMAL(10,2) NOT NULL DEFAULT '0.00',
  `status` ENUM('new','paid','shipped') NOT NULL,
  PRIMARY KEY (`id`),
  KEY `customer_idx` (`customer_id`)
) ENGINE=InnoDB AUTO_INCREMENT=98765432109876543210 DEFAULT CHARSET=utf8mb4;
INSERT INTO `customers` (`id`, `email`, `name`) VALUES (1, 'a@example.com', 'Ann'), (2, 'b@example.com', NULL);
SELECT c.name, SUM(o.total) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name;
